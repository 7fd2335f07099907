// RUN: graph-opt %s --split-input-file -p prune | filecheck %s

/// Identities, stop_gradient and inference dropout forward their input.
// CHECK-LABEL: func.func @forwarding_ops
func.func @forwarding_ops(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %[[R:.*]] = nn.relu %x
  // CHECK-NEXT: func.return %[[R]] : tensor<2x3xf32>
  %0 = nn.identity %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.stop_gradient %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.dropout %1 {ratio = 0.25 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.relu %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.identity %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %4 : tensor<2x3xf32>
}

// -----

/// An identity feeding the return goes; the output keeps its name from res_attrs.
// CHECK-LABEL: func.func @named_output
// CHECK-SAME: -> (tensor<4xf32> {nn.name = "y"})
func.func @named_output(%x: tensor<4xf32>) -> (tensor<4xf32> {nn.name = "y"}) {
  // CHECK-NEXT: %[[R:.*]] = nn.exp %x
  // CHECK-NEXT: func.return %[[R]]
  %0 = nn.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.identity %0 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

/// Chains of unused pure ops (nn and known-pure ONNX) disappear, constants too.
// CHECK-LABEL: func.func @unused_chain
func.func @unused_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: func.return %x
  %c = nn.constant dense<2.0> : tensor<4xf32>
  %0 = nn.mul %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.opaque %0 {op_type = "Floor"} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.exp %1 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// -----

/// An opaque op may have side effects: kept with its operands even if unused.
// CHECK-LABEL: func.func @negative_side_effecting_opaque
func.func @negative_side_effecting_opaque(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[E:.*]] = nn.exp %x
  // CHECK-NEXT: nn.opaque %[[E]] {op_type = "RandomNormalLike"}
  // CHECK-NEXT: nn.opaque %x {op_type = "Floor", domain = "com.example"}
  // CHECK-NEXT: func.return %x
  %0 = nn.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.opaque %0 {op_type = "RandomNormalLike"} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.opaque %x {op_type = "Floor", domain = "com.example"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// -----

/// An identity that refines the type cannot feed the return in its place.
// CHECK-LABEL: func.func @negative_type_refining_identity
func.func @negative_type_refining_identity(%x: tensor<?xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: nn.identity %x
  %0 = nn.identity %x : (tensor<?xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

/// A loop value no iteration reads and nothing uses afterwards is dropped.
// CHECK-LABEL: func.func @dead_write_only_loop_value
// CHECK: %[[I:.*]], %[[Y:.*]] = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %x) : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>)
// CHECK: scf.yield %{{.*}}, %{{.*}} : tensor<i32>, tensor<3xf32>
// CHECK: func.return %[[Y]]
func.func @dead_write_only_loop_value(%x: tensor<3xf32>, %n: tensor<i32>) -> tensor<3xf32> {
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  %i, %y, %last = scf.while (%a = %zero, %b = %x, %l = %x) : (tensor<i32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>, tensor<3xf32>) {
    %lt = nn.less %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a, %b, %l : tensor<i32>, tensor<3xf32>, tensor<3xf32>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<3xf32>, %l: tensor<3xf32>):
    %next = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %bb = nn.add %b, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %diff = nn.sub %b, %bb : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    scf.yield %next, %bb, %diff : tensor<i32>, tensor<3xf32>, tensor<3xf32>
  }
  func.return %y : tensor<3xf32>
}

// -----

/// Keras' one-slot output TensorList: the loop writes unsqueeze(h) and never
/// reads it. It is computed once from h's final value, as the initial zeros are
/// unsqueeze of h's initial zeros (a loop that runs zero times agrees).
// CHECK-LABEL: func.func @write_only_function_of_loop_value
// CHECK: %[[I:.*]], %[[H:.*]] = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
// CHECK: %[[OUT:.*]] = nn.unsqueeze %[[H]] {axes = array<i64: 0>}
// CHECK-NEXT: func.return %[[OUT]]
func.func @write_only_function_of_loop_value(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<1x2xf32> {
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  %h0 = nn.constant dense<0.0> : tensor<2xf32>
  %l0 = nn.constant dense<0.0> : tensor<1x2xf32>
  %i, %h, %l = scf.while (%a = %zero, %b = %h0, %c0 = %l0) : (tensor<i32>, tensor<2xf32>, tensor<1x2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<1x2xf32>) {
    %lt = nn.less %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a, %b, %c0 : tensor<i32>, tensor<2xf32>, tensor<1x2xf32>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<2xf32>, %c0: tensor<1x2xf32>):
    %next = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = nn.add %b, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %h1 = nn.tanh %s : (tensor<2xf32>) -> tensor<2xf32>
    %out = nn.unsqueeze %h1 {axes = array<i64: 0>} : (tensor<2xf32>) -> tensor<1x2xf32>
    scf.yield %next, %h1, %out : tensor<i32>, tensor<2xf32>, tensor<1x2xf32>
  }
  func.return %l : tensor<1x2xf32>
}

// -----

/// The same loop with an initial list that is not unsqueeze(h0): a loop that
/// runs zero times returns the list as it came in, so the value stays carried.
// CHECK-LABEL: func.func @negative_write_only_other_initial_value
// CHECK: %{{.*}}, %{{.*}}, %[[L:.*]] = scf.while
// CHECK: func.return %[[L]]
func.func @negative_write_only_other_initial_value(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<1x2xf32> {
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  %h0 = nn.constant dense<0.0> : tensor<2xf32>
  %l0 = nn.constant dense<1.0> : tensor<1x2xf32>
  %i, %h, %l = scf.while (%a = %zero, %b = %h0, %c0 = %l0) : (tensor<i32>, tensor<2xf32>, tensor<1x2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<1x2xf32>) {
    %lt = nn.less %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a, %b, %c0 : tensor<i32>, tensor<2xf32>, tensor<1x2xf32>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<2xf32>, %c0: tensor<1x2xf32>):
    %next = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %h1 = nn.tanh %b : (tensor<2xf32>) -> tensor<2xf32>
    %out = nn.unsqueeze %h1 {axes = array<i64: 0>} : (tensor<2xf32>) -> tensor<1x2xf32>
    scf.yield %next, %h1, %out : tensor<i32>, tensor<2xf32>, tensor<1x2xf32>
  }
  func.return %l : tensor<1x2xf32>
}

// -----

/// A loop value the body reads is not write-only, and one computed from a value
/// of the body other than a loop value cannot be rebuilt after the loop.
// CHECK-LABEL: func.func @negative_loop_values_read_or_from_the_body
// CHECK: %{{.*}}, %{{.*}}, %[[L:.*]], %[[M:.*]] = scf.while
// CHECK: func.return %[[L]], %[[M]]
func.func @negative_loop_values_read_or_from_the_body(%x: tensor<2xf32>, %n: tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  %h0 = nn.constant dense<0.0> : tensor<2xf32>
  %i, %h, %l, %m = scf.while (%a = %zero, %b = %h0, %c0 = %h0, %d0 = %h0) : (tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
    %lt = nn.less %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a, %b, %c0, %d0 : tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<2xf32>, %c0: tensor<2xf32>, %d0: tensor<2xf32>):
    %next = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %h1 = nn.tanh %b : (tensor<2xf32>) -> tensor<2xf32>
    %acc = nn.add %c0, %h1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %sq = nn.mul %b, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %from_body = nn.add %sq, %h1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    scf.yield %next, %h1, %acc, %from_body : tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
  func.return %l, %m : tensor<2xf32>, tensor<2xf32>
}

// -----

/// An identity waiting on an assert (`^check`) hands the wait to its user.
// CHECK-LABEL: func.func @identity_hands_its_control_inputs_to_its_user
func.func @identity_hands_its_control_inputs_to_its_user(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[E:.*]] = nn.exp %x {tf.control_inputs = ["check"]}
  // CHECK-NEXT: func.return %[[E]]
  %0 = nn.identity %x {tf.control_inputs = ["check"]} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.exp %0 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

/// A returned identity waiting on an assert stays: no user can wait instead.
// CHECK-LABEL: func.func @negative_returned_identity_waiting_on_an_assert
func.func @negative_returned_identity_waiting_on_an_assert(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[E:.*]] = nn.exp %x
  // CHECK-NEXT: %[[I:.*]] = nn.identity %[[E]] {tf.control_inputs = ["check"]}
  // CHECK-NEXT: func.return %[[I]]
  %0 = nn.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.identity %0 {tf.control_inputs = ["check"]} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
