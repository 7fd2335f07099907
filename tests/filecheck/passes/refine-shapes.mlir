// RUN: graph-opt %s --split-input-file -p refine-shapes | filecheck %s

/// A reshape to a constant shape (read through an identity, as TF freezes it)
/// becomes static, and so do its users and the function's result type.
// CHECK-LABEL: func.func @reshape_to_constant_shape
// CHECK-SAME: -> tensor<3x4xf32>
func.func @reshape_to_constant_shape(%x: tensor<2x6xf32>) -> tensor<*xf32> {
  %s = nn.constant dense<[3, 4]> : tensor<2xi64>
  %i = nn.identity %s : (tensor<2xi64>) -> tensor<2xi64>
  // CHECK: nn.reshape {{.*}} -> tensor<3x4xf32>
  // CHECK-NEXT: nn.relu {{.*}} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  // CHECK-NEXT: func.return {{.*}} : tensor<3x4xf32>
  %r = nn.reshape %x, %i : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  %y = nn.relu %r : (tensor<*xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

/// A dynamic dim that the operands fix becomes static.
// CHECK-LABEL: func.func @dynamic_dim_fixed_by_operand
// CHECK: nn.add {{.*}} -> tensor<2x3xf32>
func.func @dynamic_dim_fixed_by_operand(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<?x3xf32> {
  %a = nn.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  func.return %a : tensor<?x3xf32>
}

// -----

/// A computed target of static length fixes the rank, and the dims a
/// concatenation takes from constants.
// CHECK-LABEL: func.func @computed_shape_fixes_rank
// CHECK-SAME: -> (tensor<?x?xf32>, tensor<?x3xf32>)
// CHECK: nn.reshape {{.*}} -> tensor<?x?xf32>
// CHECK: nn.reshape {{.*}} -> tensor<?x3xf32>
func.func @computed_shape_fixes_rank(%x: tensor<2x6xf32>, %s: tensor<2xi64>, %d: tensor<1xi64>) -> (tensor<*xf32>, tensor<*xf32>) {
  %r = nn.reshape %x, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  %c = nn.constant dense<3> : tensor<1xi64>
  %t = nn.concat %d, %c {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r2 = nn.reshape %x, %t : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  func.return %r, %r2 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// A computed target of unknown length leaves the rank unknown.
// CHECK-LABEL: func.func @negative_computed_shape
// CHECK-SAME: -> tensor<*xf32>
// CHECK: nn.reshape {{.*}} -> tensor<*xf32>
func.func @negative_computed_shape(%x: tensor<2x6xf32>, %s: tensor<?xi64>) -> tensor<*xf32> {
  %r = nn.reshape %x, %s : (tensor<2x6xf32>, tensor<?xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

/// A called function keeps its signature: its returned value is refined and
/// returned through a tensor.cast.
// CHECK-LABEL: func.func @negative_called_function
// CHECK-SAME: -> tensor<*xf32>
// CHECK: %[[R:.*]] = nn.reshape {{.*}} -> tensor<3x4xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.cast %[[R]] : tensor<3x4xf32> to tensor<*xf32>
// CHECK-NEXT: func.return %[[C]] : tensor<*xf32>
func.func @negative_called_function(%x: tensor<2x6xf32>) -> tensor<*xf32> {
  %s = nn.constant dense<[3, 4]> : tensor<2xi64>
  %r = nn.reshape %x, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}
func.func @caller(%x: tensor<2x6xf32>) -> tensor<*xf32> {
  %y = func.call @negative_called_function(%x) : (tensor<2x6xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

/// Dims copied by 0 are in both products: the -1 is known though they are
/// dynamic ([b, s, 64] to [b, s, 2, 32], attention heads).
// CHECK-LABEL: func.func @reshape_infers_past_copied_dynamic_dims
// CHECK-SAME: -> tensor<?x?x2x32xf32>
func.func @reshape_infers_past_copied_dynamic_dims(%x: tensor<?x?x64xf32>) -> tensor<*xf32> {
  %t = nn.constant dense<[0, 0, -1, 32]> : tensor<4xi64>
  // CHECK: nn.reshape {{.*}} -> tensor<?x?x2x32xf32>
  %r = nn.reshape %x, %t : (tensor<?x?x64xf32>, tensor<4xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

/// A dynamic dim not copied (here moved to another place) leaves the -1 unknown;
/// so does allowzero, where 0 is a size.
// CHECK-LABEL: func.func @negative_reshape_infers_with_uncopied_dynamic_dim
// CHECK: nn.reshape {{.*}} -> tensor<2x?xf32>
// CHECK: nn.reshape {{.*}} -> tensor<0x?xf32>
func.func @negative_reshape_infers_with_uncopied_dynamic_dim(%x: tensor<2x?xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %t = nn.constant dense<[0, -1]> : tensor<2xi64>
  %r = nn.reshape %x, %t : (tensor<2x?xf32>, tensor<2xi64>) -> tensor<*xf32>
  %z = nn.reshape %x, %t {allowzero = 1 : i64} : (tensor<2x?xf32>, tensor<2xi64>) -> tensor<*xf32>
  func.return %r, %z : tensor<*xf32>, tensor<*xf32>
}

// -----

/// A loop value takes the join of its initial and yielded types: both are
/// 1x4 once the initial value is refined, so the loop carries 1x4 (a Keras
/// LSTM's zeros state, computed from the batch on import).
// CHECK-LABEL: func.func @loop_value_refined
// CHECK-SAME: -> tensor<1x4xf32>
// CHECK: %[[Z:.*]] = nn.relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %[[Z]]) : (tensor<i32>, tensor<1x4xf32>) -> (tensor<i32>, tensor<1x4xf32>)
// CHECK: scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : tensor<i32>, tensor<1x4xf32>
// CHECK: nn.add {{.*}} -> tensor<1x4xf32>
// CHECK-NEXT: scf.yield %{{.*}}, %{{.*}} : tensor<i32>, tensor<1x4xf32>
// CHECK-NOT: tensor.cast
func.func @loop_value_refined(%x: tensor<1x4xf32>, %n: tensor<i32>) -> tensor<?x?xf32> {
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  %z = nn.relu %x : (tensor<1x4xf32>) -> tensor<?x?xf32>
  %i, %y = scf.while (%a = %zero, %b = %z) : (tensor<i32>, tensor<?x?xf32>) -> (tensor<i32>, tensor<?x?xf32>) {
    %lt = nn.less %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a, %b : tensor<i32>, tensor<?x?xf32>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<?x?xf32>):
    %next = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %bb = nn.add %b, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    scf.yield %next, %bb : tensor<i32>, tensor<?x?xf32>
  }
  func.return %y : tensor<?x?xf32>
}

// -----

/// A loop value that grows each iteration keeps the dim that changes dynamic:
/// the initial value is refined and cast to the loop's type.
// CHECK-LABEL: func.func @negative_loop_value_grows
// CHECK: %[[Z:.*]] = nn.relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.cast %[[Z]] : tensor<1x4xf32> to tensor<?x4xf32>
// CHECK: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %[[C]]) : (tensor<i32>, tensor<?x4xf32>) -> (tensor<i32>, tensor<?x4xf32>)
func.func @negative_loop_value_grows(%x: tensor<1x4xf32>, %n: tensor<i32>) -> tensor<?x?xf32> {
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  %z = nn.relu %x : (tensor<1x4xf32>) -> tensor<?x?xf32>
  %i, %y = scf.while (%a = %zero, %b = %z) : (tensor<i32>, tensor<?x?xf32>) -> (tensor<i32>, tensor<?x?xf32>) {
    %lt = nn.less %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a, %b : tensor<i32>, tensor<?x?xf32>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<?x?xf32>):
    %next = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %row = nn.constant dense<1.0> : tensor<1x4xf32>
    %bb = nn.concat %b, %row {axis = 0 : i64} : (tensor<?x?xf32>, tensor<1x4xf32>) -> tensor<?x?xf32>
    scf.yield %next, %bb : tensor<i32>, tensor<?x?xf32>
  }
  func.return %y : tensor<?x?xf32>
}

// -----

/// An scf.if's result takes the join of what its branches yield.
// CHECK-LABEL: func.func @if_result_refined
// CHECK-SAME: -> tensor<2x?xf32>
// CHECK: scf.if %{{.*}} -> (tensor<2x?xf32>)
func.func @if_result_refined(%p: i1, %x: tensor<2x3xf32>, %y: tensor<2x5xf32>) -> tensor<*xf32> {
  %r = scf.if %p -> (tensor<*xf32>) {
    %a = nn.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
    scf.yield %a : tensor<*xf32>
  } else {
    %b = nn.relu %y : (tensor<2x5xf32>) -> tensor<*xf32>
    scf.yield %b : tensor<*xf32>
  }
  func.return %r : tensor<*xf32>
}

// -----

/// An scf.if without results and without an else region has nothing to join.
// CHECK-LABEL: func.func @negative_if_without_results
// CHECK: nn.reshape {{.*}} -> tensor<3x4xf32>
func.func @negative_if_without_results(%p: i1, %x: tensor<2x6xf32>) -> tensor<*xf32> {
  %s = nn.constant dense<[3, 4]> : tensor<2xi64>
  %r = nn.reshape %x, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  scf.if %p {
    %e = nn.exp %x : (tensor<2x6xf32>) -> tensor<2x6xf32>
  }
  func.return %r : tensor<*xf32>
}
