// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s
func.func @bits_out_of_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 17 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: num_bits must be in [2, 16], got 17

// -----

func.func @per_channel_without_axis(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0, -1.0>, max = array<f32: 1.0, 1.0>, num_bits = 8 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}
// CHECK: per-channel min/max (2 values) need an axis

// -----

func.func @channel_count(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0, -1.0>, max = array<f32: 1.0, 1.0>, num_bits = 8 : i64, axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
// CHECK: per-channel min/max have 2 values, but axis 1 has size 3

// -----

func.func @axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0, -1.0>, max = array<f32: 1.0, 1.0>, num_bits = 8 : i64, axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
// CHECK: axis 2 is out of range for rank 2

// -----

func.func @mismatched_lengths(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0, -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
// CHECK: min and max must have the same non-zero length, got 2 and 1

// -----

func.func @integer_input(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}
// CHECK: fake_quant needs a float tensor, got tensor<4xi32>

// -----

func.func @narrow_range_flag(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: narrow_range must be 0 or 1, got 2

// -----

func.func @integer_min(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.fake_quant %x {min = array<i64: -1>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: expected an array<f32>, got array<i64: -1>
