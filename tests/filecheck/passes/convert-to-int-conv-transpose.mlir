// RUN: graph-opt %s --split-input-file -p convert-to-int 2>/dev/null | filecheck %s
// RUN: graph-opt %s --split-input-file -p convert-to-int 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

/// Transposed conv + bias + relu: int8 IOHW filter, i32 bias in input x
/// weight scale, the window properties kept, a rescale to the output's scale
/// and the relu as a clamp at the zero point.
// CHECK-LABEL: func.func @conv_transpose_bias_relu
// CHECK:         %[[X:.*]] = nn.quantize %{{.*}} -> tensor<1x2x3x3xi8>
// CHECK-NEXT:    %[[W:.*]] = nn.constant {{.*}}dense<{{\[\[\[\[}}64, 32]], {{\[\[}}-32, 127]]], {{\[\[\[}}127, -127]], {{\[\[}}95, 0]]]]> : tensor<2x2x1x2xi8>
// CHECK-NEXT:    %[[B:.*]] = nn.constant {{.*}}dense<[1619, -3238]> : tensor<2xi32>
// CHECK-NEXT:    %[[ACC:.*]] = nn.qconv_transpose %[[X]], %[[W]], %[[B]] {{.*}}strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 1>, output_padding = array<i64: 1, 1>, input_zp = -1 : i64, weight_zp = 0 : i64} : (tensor<1x2x3x3xi8>, tensor<2x2x1x2xi8>, tensor<2xi32>) -> tensor<1x2x6x6xi32>
// CHECK-NEXT:    %[[R:.*]] = nn.rescale %[[ACC]] {{.*}}multiplier = array<i32: 1731514409>, shift = array<i8: 38>, input_zp = 0 : i64, output_zp = -77 : i64, {{.*}}per_channel = 0 : i64{{.*}}} : (tensor<1x2x6x6xi32>) -> tensor<1x2x6x6xi8>
// CHECK-NEXT:    %[[C:.*]] = nn.clip %[[R]] {{.*}}min = -7.700000e+01 : f32, max = 1.270000e+02 : f32}
// CHECK-NEXT:    %[[D:.*]] = nn.dequantize %[[C]] {{.*}}scale = array<f32: 0.00980392192>, zero_point = array<i64: -77>}
// CHECK-NEXT:    func.return %[[D]]
func.func @conv_transpose_bias_relu(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %w = nn.constant dense<[[[[0.5, 0.25]], [[-0.25, 1.0]]], [[[1.0, -1.0]], [[0.75, 0.0]]]]> : tensor<2x2x1x2xf32>
  %wq = nn.fake_quant %w {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<2x2x1x2xf32>) -> tensor<2x2x1x2xf32>
  %b = nn.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %1 = nn.conv_transpose %0, %wq, %b {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x2xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  %2 = nn.relu %1 : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %3 = nn.fake_quant %2 {min = array<f32: -0.5>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  func.return %3 : tensor<1x2x6x6xf32>
}


// -----

/// Per-channel weights of a grouped transposed conv: the filter's scales are
/// per output channel of a group (axis 1 of IOHW), so output channel
/// g * 2 + j rescales by scale j: the multipliers and shifts repeat per group.
// CHECK-LABEL: func.func @conv_transpose_per_channel_groups
// CHECK:         %[[ACC:.*]] = nn.qconv_transpose %{{.*}}, %{{.*}} {{.*}}strides = array<i64: 2, 2>, group = 2 : i64, input_zp = -1 : i64, weight_zp = 0 : i64} : (tensor<1x4x3x3xi8>, tensor<4x2x2x2xi8>) -> tensor<1x4x6x6xi32>
// CHECK-NEXT:    %[[T:.*]] = nn.transpose %[[ACC]] {{.*}}perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    nn.rescale %[[T]] {{.*}}multiplier = array<i32: [[M0:[0-9]+]], [[M1:[0-9]+]], [[M0]], [[M1]]>, shift = array<i8: 39, 38, 39, 38>, {{.*}}per_channel = 1 : i64{{.*}}} : (tensor<1x6x6x4xi32>) -> tensor<1x6x6x4xi8>
// CHECK-NOT:     nn.fake_quant
func.func @conv_transpose_per_channel_groups(%x: tensor<1x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %w = nn.constant dense<0.25> : tensor<4x2x2x2xf32>
  %wq = nn.fake_quant %w {min = array<f32: -0.5, -1.0>, max = array<f32: 0.5, 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 1 : i64} : (tensor<4x2x2x2xf32>) -> tensor<4x2x2x2xf32>
  %1 = nn.conv_transpose %0, %wq {strides = array<i64: 2, 2>, group = 2 : i64} : (tensor<1x4x3x3xf32>, tensor<4x2x2x2xf32>) -> tensor<1x4x6x6xf32>
  %2 = nn.fake_quant %1 {min = array<f32: -2.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %2 : tensor<1x4x6x6xf32>
}


// -----

/// Asymmetric per-channel weight ranges have different zero points (TOSA's
/// transpose_conv2d takes one): the transposed conv stays float between
/// dequantize and quantize, and convert-to-int says why.
// CHECK-LABEL: func.func @negative_conv_transpose_per_channel_zero_points
// CHECK-NOT:     nn.qconv_transpose
// CHECK:         nn.conv_transpose %{{.*}} : (tensor<1x2x3x3xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x6x6xf32>
// CHECK-NOT:     nn.fake_quant
// WARN: warning: convert-to-int: 1 of 1 convolutions and matrix products stay float (first: nn.conv_transpose: its per-channel weight ranges have different zero points (TOSA takes one): quantize{symmetric=true})
func.func @negative_conv_transpose_per_channel_zero_points(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %w = nn.constant dense<0.25> : tensor<2x2x2x2xf32>
  %wq = nn.fake_quant %w {min = array<f32: -0.5, 0.0>, max = array<f32: 0.5, 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 1 : i64} : (tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32>
  %1 = nn.conv_transpose %0, %wq {strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x6x6xf32>
  %2 = nn.fake_quant %1 {min = array<f32: -2.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  func.return %2 : tensor<1x2x6x6xf32>
}
