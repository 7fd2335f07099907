// RUN: graph-opt %s --split-input-file -p fold-bn 2>/dev/null | filecheck %s
// RUN: graph-opt %s --split-input-file -p fold-bn 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

/// A transposed conv whose IOHW filter is fake-quantized per output channel
/// (axis 1), with as many input as output channels: the BN scale of output
/// channel j scales filter column j and its range.
// CHECK-LABEL: func.func @per_channel_fake_quantized_conv_transpose
// CHECK:         %[[W:.*]] = nn.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}-7.500000e-01]]], {{\[\[\[}}5.000000e-01]], {{\[\[}}1.500000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[Q:.*]] = nn.fake_quant %[[W]] {min = array<f32: -2.000000e+00, -1.500000e+00>, max = array<f32: 2.000000e+00, 1.500000e+00>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 1 : i64}
// CHECK-NEXT:    nn.conv_transpose %x, %[[Q]], %{{.*}} {strides = array<i64: 2, 2>}
// CHECK-NOT:     nn.batch_norm
func.func @per_channel_fake_quantized_conv_transpose(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x3x3xf32> {
  %w0 = nn.constant dense<[[[[0.5]], [[-0.25]]], [[[0.25]], [[0.5]]]]> : tensor<2x2x1x1xf32>
  %w = nn.fake_quant %w0 {min = array<f32: -1.0, -0.5>, max = array<f32: 1.0, 0.5>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 1 : i64} : (tensor<2x2x1x1xf32>) -> tensor<2x2x1x1xf32>
  %c = nn.conv_transpose %x, %w {strides = array<i64: 2, 2>} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %gamma = nn.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %beta = nn.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %mean = nn.constant dense<0.0> : tensor<2xf32>
  %var = nn.constant dense<1.0> : tensor<2xf32>
  %y = nn.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

/// Grouped: output channel g * 2 + j takes filter column j of group g's
/// rows, so its BN scale varies along both filter axes; one range per column
/// cannot hold it, and fold-bn says so.
// CHECK-LABEL: func.func @negative_grouped_fake_quantized_conv_transpose
// CHECK: nn.batch_norm
// WARN: fold-bn: folded 0 of 1 batch norms; 1 left (first: nn.batch_norm y: the filter's output channels do not lie on one axis
func.func @negative_grouped_fake_quantized_conv_transpose(%x: tensor<1x2x2x2xf32>) -> tensor<1x4x3x3xf32> {
  %w0 = nn.constant dense<[[[[0.5]], [[-0.25]]], [[[0.25]], [[0.5]]]]> : tensor<2x2x1x1xf32>
  %w = nn.fake_quant %w0 {min = array<f32: -1.0, -0.5>, max = array<f32: 1.0, 0.5>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 1 : i64} : (tensor<2x2x1x1xf32>) -> tensor<2x2x1x1xf32>
  %c = nn.conv_transpose %x, %w {strides = array<i64: 2, 2>, group = 2 : i64} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x4x3x3xf32>
  %gamma = nn.constant dense<[2.0, 3.0, 4.0, 5.0]> : tensor<4xf32>
  %beta = nn.constant dense<0.5> : tensor<4xf32>
  %mean = nn.constant dense<0.0> : tensor<4xf32>
  %var = nn.constant dense<1.0> : tensor<4xf32>
  %y = nn.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return %y : tensor<1x4x3x3xf32>
}
