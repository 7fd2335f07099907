// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @matmul_needs_rank_3(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %zp: tensor<1xf32>) {
  %mm = "tosa.matmul"(%a, %b, %zp, %zp) : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x5xf32>
  func.return
}
// CHECK: tosa.matmul needs rank-3 operands

// -----

func.func @matmul_contraction(%a: tensor<1x3x4xf32>, %b: tensor<1x5x4xf32>, %zp: tensor<1xf32>) {
  %mm = "tosa.matmul"(%a, %b, %zp, %zp) : (tensor<1x3x4xf32>, tensor<1x5x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x4xf32>
  func.return
}
// CHECK: tosa.matmul shapes (1, 3, 4) and (1, 5, 4) do not contract

// -----

func.func @conv_needs_rank_4(%x: tensor<4x4x2xf32>, %w: tensor<3x1x1x2xf32>, %b: tensor<3xf32>, %zp: tensor<1xf32>) {
  %c = "tosa.conv2d"(%x, %w, %b, %zp, %zp) <{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x4x3xf32>
  func.return
}
// CHECK: tosa.conv2d needs rank-4 input, weight and output

// -----

func.func @const_shape_rank(%x: tensor<4xf32>) {
  %s = "tosa.const_shape"() <{values = dense<[2, 2]> : tensor<2xindex>}> : () -> !tosa.shape<3>
  func.return
}
// CHECK: const_shape values must be 1-D of the shape's rank

// -----

func.func @binary_shapes(%x: tensor<4xf32>, %y: tensor<3xf32>) {
  %m = "tosa.maximum"(%x, %y) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  func.return
}
// CHECK: tosa.maximum: operand and result shapes differ

// -----

func.func @cond_if_needs_rank_0_condition(%p: tensor<1xi1>, %x: tensor<f32>) {
  %r = "tosa.cond_if"(%p, %x) ({
  ^bb0(%a: tensor<f32>):
    "tosa.yield"(%a) : (tensor<f32>) -> ()
  }, {
  ^bb0(%a: tensor<f32>):
    "tosa.yield"(%a) : (tensor<f32>) -> ()
  }) : (tensor<1xi1>, tensor<f32>) -> tensor<f32>
  func.return
}
// CHECK: Expected attribute tensor<i1> but got tensor<1xi1>

// -----

func.func @cond_if_block_arguments(%p: tensor<i1>, %x: tensor<f32>) {
  %r = "tosa.cond_if"(%p, %x) ({
  ^bb0(%a: tensor<i32>):
    "tosa.yield"(%x) : (tensor<f32>) -> ()
  }, {
  ^bb0(%a: tensor<f32>):
    "tosa.yield"(%a) : (tensor<f32>) -> ()
  }) : (tensor<i1>, tensor<f32>) -> tensor<f32>
  func.return
}
// CHECK: tosa.cond_if: region arguments must have the input list's types

// -----

func.func @cond_if_yields_outputs(%p: tensor<i1>, %x: tensor<f32>) {
  %r = "tosa.cond_if"(%p, %x) ({
  ^bb0(%a: tensor<f32>):
    "tosa.yield"(%a) : (tensor<f32>) -> ()
  }, {
  ^bb0(%a: tensor<f32>):
    "tosa.yield"(%a, %a) : (tensor<f32>, tensor<f32>) -> ()
  }) : (tensor<i1>, tensor<f32>) -> tensor<f32>
  func.return
}
// CHECK: tosa.cond_if: each branch yields the output list's types

// -----

func.func @while_loop_cond_yields_i1(%n: tensor<i32>) {
  %w = "tosa.while_loop"(%n) ({
  ^bb0(%i: tensor<i32>):
    "tosa.yield"(%i) : (tensor<i32>) -> ()
  }, {
  ^bb0(%i: tensor<i32>):
    "tosa.yield"(%i) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  func.return
}
// CHECK: tosa.while_loop: cond_graph yields one tensor<i1>

// -----

func.func @while_loop_body_yields_inputs(%n: tensor<i32>, %p: tensor<i1>) {
  %w = "tosa.while_loop"(%n) ({
  ^bb0(%i: tensor<i32>):
    "tosa.yield"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>):
    "tosa.yield"(%p) : (tensor<i1>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  func.return
}
// CHECK: tosa.while_loop: body_graph yields the input list's types

// -----

func.func @while_loop_outputs(%n: tensor<i32>) {
  %w = "tosa.while_loop"(%n) ({
  ^bb0(%i: tensor<i32>):
    %c = "tosa.greater"(%i, %i) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tosa.yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>):
    "tosa.yield"(%i) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<f32>
  func.return
}
// CHECK: tosa.while_loop: outputs must have the input list's types

// -----

func.func @yield_outside_control_flow(%x: tensor<f32>) {
  "tosa.yield"(%x) : (tensor<f32>) -> ()
}
// CHECK: 'tosa.yield' expects parent op to be one of 'tosa.cond_if', 'tosa.while_loop'
