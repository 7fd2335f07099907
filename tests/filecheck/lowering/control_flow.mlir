// RUN: graph-opt %s --split-input-file -p lower-to-tosa 2>&1 | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'lower-to-tosa{keep-nested-scf=false}' 2>&1 | filecheck %s --check-prefix=ALL

/// TensorFlow's cond: scf.if on a value extracted from a comparison's tensor<i1>
/// becomes tosa.cond_if on that tensor. Values from outside become inputs and
/// block arguments; constants are cloned into the branches.
// CHECK-LABEL: func.func @cond_on_comparison
// ALL-LABEL: func.func @cond_on_comparison
func.func @cond_on_comparison(%x: tensor<2xf32>, %s: tensor<f32>) -> tensor<2xf32> {
  %zero = nn.constant dense<0.0> : tensor<f32>
  %two = nn.constant dense<2.0> : tensor<2xf32>
  // CHECK: %[[P:.*]] = tosa.greater %s, %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %p = nn.greater %s, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
  // CHECK-NOT: tensor.extract
  %c = tensor.extract %p[] : tensor<i1>
  // CHECK: %[[R:.*]] = "tosa.cond_if"(%[[P]], %x) ({
  // CHECK-NEXT: ^{{.*}}(%[[X:.*]]: tensor<2xf32>):
  // CHECK-NEXT: %[[TWO:.*]] = "tosa.const"() <{values = dense<2.000000e+00> : tensor<2xf32>}>
  // CHECK: tosa.mul %[[X]], %[[TWO]]
  // CHECK: tosa.yield %{{.*}} : tensor<2xf32>
  // CHECK-NEXT: }, {
  // CHECK-NEXT: ^{{.*}}(%[[X2:.*]]: tensor<2xf32>):
  // CHECK-NEXT: tosa.yield %[[X2]] : tensor<2xf32>
  // CHECK-NEXT: }) : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  %r = scf.if %c -> (tensor<2xf32>) {
    %m = nn.mul %x, %two : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    scf.yield %m : tensor<2xf32>
  } else {
    scf.yield %x : tensor<2xf32>
  }
  // CHECK: func.return %[[R]]
  func.return %r : tensor<2xf32>
}

// -----

/// TensorFlow's while: the condition region forwards its arguments, so it
/// becomes cond_graph yielding the tensor<i1>; a value the regions use from
/// outside (%limit) becomes an extra loop-carried value the body passes through.
// CHECK-LABEL: func.func @while_counting_to_limit
func.func @while_counting_to_limit(%x: tensor<3xf32>, %limit: tensor<i32>) -> tensor<3xf32> {
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  // CHECK: %i, %y, %{{.*}} = "tosa.while_loop"(%{{.*}}, %x, %limit) ({
  // CHECK-NEXT: ^{{.*}}(%[[I:.*]]: tensor<i32>, %{{.*}}: tensor<3xf32>, %[[L:.*]]: tensor<i32>):
  // CHECK-NEXT: %[[LT:.*]] = tosa.greater %[[L]], %[[I]]
  // CHECK-NEXT: tosa.yield %[[LT]] : tensor<i1>
  // CHECK-NEXT: }, {
  // CHECK-NEXT: ^{{.*}}(%[[J:.*]]: tensor<i32>, %[[Y:.*]]: tensor<3xf32>, %[[L2:.*]]: tensor<i32>):
  // CHECK: %[[NEXT:.*]] = tosa.add %[[J]], %{{.*}} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  // CHECK: %[[YY:.*]] = tosa.add %[[Y]], %[[Y]]
  // CHECK-NEXT: tosa.yield %[[NEXT]], %[[YY]], %[[L2]] : tensor<i32>, tensor<3xf32>, tensor<i32>
  // CHECK-NEXT: }) : (tensor<i32>, tensor<3xf32>, tensor<i32>) -> (tensor<i32>, tensor<3xf32>, tensor<i32>)
  %i, %y = scf.while (%a = %zero, %b = %x) : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) {
    %lt = nn.less %a, %limit : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a, %b : tensor<i32>, tensor<3xf32>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<3xf32>):
    %next = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %bb = nn.add %b, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    scf.yield %next, %bb : tensor<i32>, tensor<3xf32>
  }
  // CHECK: func.return %y
  func.return %y : tensor<3xf32>
}

// -----

/// A while nested in a while: IREE 3.13 cannot legalize a tosa.while_loop in a
/// tosa.while_loop, so by default the outer loop stays scf (with a warning) and
/// the inner one is lowered; keep-nested-scf=false lowers both.
// CHECK: warning: lower-to-tosa: kept scf.while at loc("outer") as scf: it holds a tosa.while_loop, and IREE 3.13's TOSA input conversion cannot legalize a tosa.while_loop in a tosa.while_loop; keep-nested-scf=false lowers it anyway
// CHECK-LABEL: func.func @nested_while
// CHECK: scf.while
// CHECK: "tosa.while_loop"
// ALL-LABEL: func.func @nested_while
// ALL-NOT: scf.while
// ALL: "tosa.while_loop"
// ALL: "tosa.while_loop"
func.func @nested_while(%n: tensor<i32>) -> tensor<i32> {
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  %r = scf.while (%i = %zero) : (tensor<i32>) -> tensor<i32> {
    %lt = nn.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %i : tensor<i32>
  } do {
  ^bb0(%i: tensor<i32>):
    %s = scf.while (%j = %i) : (tensor<i32>) -> tensor<i32> {
      %lt = nn.less %j, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c = tensor.extract %lt[] : tensor<i1>
      scf.condition(%c) %j : tensor<i32>
    } do {
    ^bb0(%j: tensor<i32>):
      %next = nn.add %j, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
      scf.yield %next : tensor<i32>
    }
    scf.yield %s : tensor<i32>
  } loc("outer")
  func.return %r : tensor<i32>
}

// -----

/// The condition region computes what it forwards: TOSA's cond_graph yields
/// only the condition, so the loop stays scf, with a warning saying why.
// CHECK: warning: lower-to-tosa: kept scf.while at loc("forwarding") as scf: its condition region forwards values other than its arguments
// CHECK-LABEL: func.func @negative_while_forwarding_computed_values
// CHECK: scf.while
// CHECK: scf.condition
func.func @negative_while_forwarding_computed_values(%x: tensor<i32>) -> tensor<i32> {
  %one = nn.constant dense<1> : tensor<i32>
  %r = scf.while (%i = %x) : (tensor<i32>) -> tensor<i32> {
    %next = nn.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %lt = nn.less %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %next : tensor<i32>
  } do {
  ^bb0(%i: tensor<i32>):
    scf.yield %i : tensor<i32>
  } loc("forwarding")
  func.return %r : tensor<i32>
}

// -----

/// A condition that is not extracted from a tensor<i1> has no TOSA form.
// CHECK: warning: lower-to-tosa: kept scf.if at loc("scalar") as scf: its condition is not extracted from a tensor<i1>
// CHECK-LABEL: func.func @negative_cond_on_scalar_i1
// CHECK: scf.if %c
func.func @negative_cond_on_scalar_i1(%c: i1, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = scf.if %c -> (tensor<2xf32>) {
    scf.yield %x : tensor<2xf32>
  } else {
    %n = nn.neg %x : (tensor<2xf32>) -> tensor<2xf32>
    scf.yield %n : tensor<2xf32>
  } loc("scalar")
  func.return %r : tensor<2xf32>
}

// -----

/// A loop value no iteration reads (an LSTM's one-slot output list, here
/// through an identity) leaves the loop before lowering, as prune does: IREE
/// 3.13 crashes on loops that carry one. It is recomputed after the loop from
/// the final state it is a function of (both start as zeros).
// CHECK-LABEL: func.func @write_only_loop_value_leaves_the_loop
// CHECK: %{{[^,]*}}, %[[H:[^,]*]], %{{.*}} = "tosa.while_loop"(%zero, %h0, %limit, %x)
// CHECK: }) : (tensor<i32>, tensor<3xf32>, tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>, tensor<i32>, tensor<3xf32>)
// CHECK: %[[LAST:.*]] = tosa.reshape %[[H]]
// CHECK: func.return %[[LAST]]
func.func @write_only_loop_value_leaves_the_loop(%x: tensor<3xf32>, %limit: tensor<i32>) -> tensor<1x3xf32> {
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  %h0 = nn.constant dense<0.0> : tensor<3xf32>
  %l0 = nn.constant dense<0.0> : tensor<1x3xf32>
  %i, %h, %last = scf.while (%a = %zero, %b = %h0, %l = %l0) : (tensor<i32>, tensor<3xf32>, tensor<1x3xf32>) -> (tensor<i32>, tensor<3xf32>, tensor<1x3xf32>) {
    %lt = nn.less %a, %limit : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a, %b, %l : tensor<i32>, tensor<3xf32>, tensor<1x3xf32>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<3xf32>, %l: tensor<1x3xf32>):
    %next = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %bb = nn.add %b, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %row = nn.unsqueeze %bb {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<1x3xf32>
    %kept = nn.identity %row : (tensor<1x3xf32>) -> tensor<1x3xf32>
    scf.yield %next, %bb, %kept : tensor<i32>, tensor<3xf32>, tensor<1x3xf32>
  }
  func.return %last : tensor<1x3xf32>
}
