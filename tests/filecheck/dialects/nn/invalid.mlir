// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @add_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  %0 = nn.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
// CHECK: shapes [2, 3] and [1, 4] are not broadcastable

// -----

func.func @conv_wrong_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %0 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %0 : tensor<1x4x8x8xf32>
}
// CHECK: result #0 has type tensor<1x4x8x8xf32>, but the operands imply tensor<1x4x6x6xf32>

// -----

func.func @conv_group_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = nn.conv %x, %w {group = 2 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %0 : tensor<1x4x6x6xf32>
}
// CHECK: input has 3 channels, filter expects 3 x 2 groups

// -----

func.func @swap_in_changes_type(%h: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %a = nn.swap_in %h : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %a : tensor<3x2xf32>
}
// CHECK: result #0 has type tensor<3x2xf32>, but the operands imply tensor<2x3xf32>
