// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @transpose_bad_perm(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = nn.transpose %x {perm = array<i64: 2, 0, 0>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  func.return %0 : tensor<4x2x3xf32>
}
// CHECK: perm [2, 0, 0] is not a permutation of rank 3

// -----

func.func @transpose_wrong_result(%x: tensor<2x3x4xf32>) -> tensor<2x4x3xf32> {
  %0 = nn.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  func.return %0 : tensor<2x4x3xf32>
}
// CHECK: result #0 has type tensor<2x4x3xf32>, but the operands imply tensor<4x2x3xf32>

// -----

func.func @flatten_axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<6x1xf32> {
  %0 = nn.flatten %x {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  func.return %0 : tensor<6x1xf32>
}
// CHECK: axis 3 is out of range for rank 2

// -----

func.func @squeeze_non_unit_dim(%x: tensor<2x1xf32>) -> tensor<1xf32> {
  %0 = nn.squeeze %x {axes = array<i64: 0>} : (tensor<2x1xf32>) -> tensor<1xf32>
  func.return %0 : tensor<1xf32>
}
// CHECK: cannot squeeze axis 0 of size 2

// -----

func.func @unsqueeze_duplicate_axes(%x: tensor<2xf32>) -> tensor<1x1x2xf32> {
  %0 = nn.unsqueeze %x {axes = array<i64: 0, 0>} : (tensor<2xf32>) -> tensor<1x1x2xf32>
  func.return %0 : tensor<1x1x2xf32>
}
// CHECK: axes [0, 0] has duplicates

// -----

func.func @unsqueeze_without_axes(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = nn.unsqueeze %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
// CHECK: nn.unsqueeze needs axes

// -----

func.func @concat_mismatched_dims(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  %0 = nn.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  func.return %0 : tensor<2x6xf32>
}
// CHECK: cannot concatenate tensor<2x3xf32> and tensor<3x3xf32> along axis 1

// -----

func.func @split_wrong_sizes(%x: tensor<2x5xf32>) -> tensor<2x2xf32> {
  %0:2 = nn.split %x {axis = 1 : i64, split = array<i64: 2, 2>} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  func.return %0#0 : tensor<2x2xf32>
}
// CHECK: split sizes [2, 2] do not add up to dim 1 of size 5

// -----

func.func @split_wrong_result_count(%x: tensor<4xf32>) -> tensor<2xf32> {
  %0:3 = nn.split %x {split = array<i64: 2, 2>} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<0xf32>)
  func.return %0#0 : tensor<2xf32>
}
// CHECK: expected 2 results, got 3

// -----

func.func @slice_zero_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = nn.constant dense<0> : tensor<1xi64>
  %0 = nn.slice %x, %c0, %c0, %c0, %c0 : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: slice steps must not be 0

// -----

func.func @slice_axis_out_of_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = nn.constant dense<0> : tensor<1xi64>
  %c1 = nn.constant dense<1> : tensor<1xi64>
  %0 = nn.slice %x, %c0, %c1, %c1, %c1 : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: axis 1 is out of range for rank 1

// -----

func.func @slice_float_starts(%x: tensor<4xf32>, %s: tensor<1xf32>, %i: tensor<1xi64>) -> tensor<?xf32> {
  %0 = nn.slice %x, %s, %i, %i, %i : (tensor<4xf32>, tensor<1xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK: starts must be a 1-D integer tensor, got tensor<1xf32>

// -----

func.func @gather_index_out_of_range(%x: tensor<3x2xf32>) -> tensor<1x2xf32> {
  %i = nn.constant dense<[-4]> : tensor<1xi64>
  %0 = nn.gather %x, %i : (tensor<3x2xf32>, tensor<1xi64>) -> tensor<1x2xf32>
  func.return %0 : tensor<1x2xf32>
}
// CHECK: indices are out of range for dim 0 of size 3

// -----

func.func @pad_wrong_length(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %0 = nn.pad %x {pads = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  func.return %0 : tensor<3x3xf32>
}
// CHECK: pads needs 4 values, got 2

// -----

func.func @pad_unknown_mode(%x: tensor<2xf32>) -> tensor<4xf32> {
  %0 = nn.pad %x {pads = array<i64: 1, 1>, mode = "wrap"} : (tensor<2xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: mode must be one of ('constant', 'reflect', 'edge'), got 'wrap'

// -----

func.func @pad_reflect_too_wide(%x: tensor<2xf32>) -> tensor<6xf32> {
  %0 = nn.pad %x {pads = array<i64: 2, 2>, mode = "reflect"} : (tensor<2xf32>) -> tensor<6xf32>
  func.return %0 : tensor<6xf32>
}
// CHECK: reflect pads must be smaller than dim size 2

// -----

func.func @cast_wrong_result(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = nn.cast %x {to = f16} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
// CHECK: result #0 has type tensor<2xf32>, but the operands imply tensor<2xf16>

// -----

func.func @shape_wrong_length(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  %0 = nn.shape %x {start = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xi64>
  func.return %0 : tensor<2xi64>
}
// CHECK: result #0 has type tensor<2xi64>, but the operands imply tensor<1xi64>

// -----

func.func @constant_of_shape_bad_shape(%s: tensor<2xi32>) -> tensor<?x?xf32> {
  %0 = nn.constant_of_shape %s : (tensor<2xi32>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}
// CHECK: shape must be a 1-D i64 tensor, got tensor<2xi32>

// -----

func.func @dropout_bad_ratio(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = nn.dropout %x {ratio = 1.0 : f32} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
// CHECK: ratio must be in [0, 1), got 1.0

// -----

func.func @cast_to_a_non_element_type(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = nn.cast %x {to = tensor<2xf32>} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
// CHECK: cannot cast to tensor<2xf32>: not an element type

// -----

func.func @cast_saturate_not_a_flag(%x: tensor<2xf32>) -> tensor<2xf8E4M3FN> {
  %0 = nn.cast %x {to = f8E4M3FN, saturate = 2 : i64} : (tensor<2xf32>) -> tensor<2xf8E4M3FN>
  func.return %0 : tensor<2xf8E4M3FN>
}
// CHECK: saturate must be 0 or 1, got 2
