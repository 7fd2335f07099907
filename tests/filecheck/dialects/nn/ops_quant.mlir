// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

// CHECK-LABEL: func.func @fake_quant_per_tensor
func.func @fake_quant_per_tensor(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: nn.fake_quant %{{.*}} {min = array<f32: -1.000000e+00>, max = array<f32: 2.000000e+00>, num_bits = 8 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @fake_quant_per_channel
func.func @fake_quant_per_channel(%w: tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32> {
  // CHECK: nn.fake_quant %{{.*}} {min = array<f32: -1.000000e+00, -2.000000e+00, -3.000000e+00, -4.000000e+00>, max = array<f32: 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00>, num_bits = 4 : i64, narrow_range = 1 : i64, axis = 0 : i64}
  %0 = nn.fake_quant %w {min = array<f32: -1.0, -2.0, -3.0, -4.0>, max = array<f32: 1.0, 2.0, 3.0, 4.0>, num_bits = 4 : i64, narrow_range = 1 : i64, axis = 0 : i64} : (tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  func.return %0 : tensor<4x3x3x3xf32>
}

// CHECK-LABEL: func.func @fake_quant_dynamic_channels
func.func @fake_quant_dynamic_channels(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // CHECK: nn.fake_quant %{{.*}} {{{.*}}axis = -1 : i64} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = nn.fake_quant %x {min = array<f32: 0.0, 0.0>, max = array<f32: 0.0, 1.0>, num_bits = 16 : i64, axis = -1 : i64} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}
