// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @tile_wrong_repeat_count(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %r = nn.constant dense<[2, 3, 4]> : tensor<3xi64>
  %0 = nn.tile %x, %r : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}
// CHECK: repeats has 3 values for rank 2

// -----

func.func @tile_wrong_result(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %r = nn.constant dense<[2, 2]> : tensor<2xi64>
  %0 = nn.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  func.return %0 : tensor<4x3xf32>
}
// CHECK: result #0 has type tensor<4x3xf32>, but the operands imply tensor<4x6xf32>

// -----

func.func @range_zero_delta() -> tensor<?xi64> {
  %a = nn.constant dense<0> : tensor<i64>
  %0 = nn.range %a, %a, %a : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}
// CHECK: range delta must not be 0

// -----

func.func @range_mixed_types(%a: tensor<i64>, %b: tensor<f32>) -> tensor<?xi64> {
  %0 = nn.range %a, %a, %b : (tensor<i64>, tensor<i64>, tensor<f32>) -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}
// CHECK: start, limit and delta must be scalars of one type

// -----

func.func @one_hot_float_indices(%i: tensor<3xf32>, %v: tensor<2xf32>) -> tensor<3x4xf32> {
  %0 = nn.one_hot %i, %v {depth = 4 : i64} : (tensor<3xf32>, tensor<2xf32>) -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}
// CHECK: indices must be integers

// -----

func.func @one_hot_three_values(%i: tensor<3xi32>, %v: tensor<3xf32>) -> tensor<3x4xf32> {
  %0 = nn.one_hot %i, %v {depth = 4 : i64} : (tensor<3xi32>, tensor<3xf32>) -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}
// CHECK: values must hold [off, on]

// -----

func.func @top_k_too_many(%x: tensor<3x6xf32>) -> (tensor<3x7xf32>, tensor<3x7xi64>) {
  %0, %1 = nn.top_k %x {k = 7 : i64} : (tensor<3x6xf32>) -> (tensor<3x7xf32>, tensor<3x7xi64>)
  func.return %0, %1 : tensor<3x7xf32>, tensor<3x7xi64>
}
// CHECK: k 7 is out of range for dim 1 of size 6

// -----

func.func @resize_bad_mode(%x: tensor<1x4xf32>) -> tensor<1x8xf32> {
  %0 = nn.resize %x {sizes = array<i64: 1, 8>, mode = "cubic"} : (tensor<1x4xf32>) -> tensor<1x8xf32>
  func.return %0 : tensor<1x8xf32>
}
// CHECK: 'cubic' is not one of ('nearest', 'linear')

// -----

func.func @resize_wrong_rank(%x: tensor<1x4xf32>) -> tensor<8xf32> {
  %0 = nn.resize %x {sizes = array<i64: 8>} : (tensor<1x4xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
// CHECK: sizes [8] do not match rank 2

// -----

func.func @gather_nd_too_deep(%x: tensor<2x3xf32>, %i: tensor<4x3xi64>) -> tensor<4xf32> {
  %0 = nn.gather_nd %x, %i : (tensor<2x3xf32>, tensor<4x3xi64>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: indices [4, 3] with batch_dims 0 do not fit data of rank 2


// -----

func.func @one_hot_negative_depth(%i: tensor<3xi32>, %v: tensor<2xf32>) -> tensor<3x4xf32> {
  %0 = nn.one_hot %i, %v {depth = -4 : i64} : (tensor<3xi32>, tensor<2xf32>) -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}
// CHECK: depth -4 must not be negative

// -----

func.func @gather_elements_rank_mismatch(%x: tensor<3x4xf32>, %i: tensor<5xi64>) -> tensor<5xf32> {
  %0 = nn.gather_elements %x, %i : (tensor<3x4xf32>, tensor<5xi64>) -> tensor<5xf32>
  func.return %0 : tensor<5xf32>
}
// CHECK: indices [5] must have the rank of data [3, 4]

// -----

func.func @gather_elements_indices_wider_than_data(%x: tensor<3x4xf32>, %i: tensor<4x2xi64>) -> tensor<4x2xf32> {
  %0 = nn.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  func.return %0 : tensor<4x2xf32>
}
// CHECK: indices dim 0 of size 4 is larger than data's (3)

// -----

func.func @gather_elements_constant_out_of_range(%x: tensor<3x4xf32>) -> tensor<1x4xf32> {
  %i = nn.constant dense<[[0, 3, -3, 1]]> : tensor<1x4xi64>
  %0 = nn.gather_elements %x, %i : (tensor<3x4xf32>, tensor<1x4xi64>) -> tensor<1x4xf32>
  func.return %0 : tensor<1x4xf32>
}
// CHECK: indices are out of range for dim 0 of size 3

// -----

func.func @non_max_suppression_box_count(%b: tensor<2x30x4xf32>, %s: tensor<2x3x20xf32>) -> tensor<?x3xi64> {
  %0 = nn.non_max_suppression %b, %s {max_output_boxes_per_class = 5 : i64, iou_threshold = 0.5 : f32} : (tensor<2x30x4xf32>, tensor<2x3x20xf32>) -> tensor<?x3xi64>
  func.return %0 : tensor<?x3xi64>
}
// CHECK: boxes and scores differ in box count: 30 and 20
