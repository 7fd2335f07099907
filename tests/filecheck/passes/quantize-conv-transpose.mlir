// RUN: graph-opt %s --split-input-file -p quantize 2>/dev/null | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'quantize{per-channel=true}' 2>/dev/null | filecheck %s --check-prefix=CHAN
// RUN: graph-opt %s --split-input-file -p quantize 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

/// A transposed conv is a layer like a conv: a narrow-range fake_quant on its
/// filter, one on its input and one after its relu; the bias moves to the
/// int32 grid (input scale x weight scale). Per channel, the ranges are over
/// the filter's output-channel axis, 1 of IOHW.
// CHECK-LABEL: func.func @conv_transpose_relu
// CHAN-LABEL: func.func @conv_transpose_relu
func.func @conv_transpose_relu(%x: tensor<1x2x3x3xf32> {nn.range = array<f32: -1.0, 2.0>}) -> tensor<1x3x6x6xf32> {
  // CHECK: %[[XQ:.*]] = nn.fake_quant %x {min = array<f32: -1.000000e+00>, max = array<f32: 2.000000e+00>, num_bits = 8 : i64}
  // CHECK: %[[WQ:.*]] = nn.fake_quant %w {min = array<f32: -4.000000e+00>, max = array<f32: 4.000000e+00>, num_bits = 8 : i64, narrow_range = 1 : i64}
  // CHECK: %[[B:.*]] = nn.constant dense<[{{.*}}]> : tensor<3xf32>
  // CHECK-NEXT: %[[C:.*]] = nn.conv_transpose %[[XQ]], %[[WQ]], %[[B]] {strides = array<i64: 2, 2>}
  // CHECK-NEXT: %[[R:.*]] = nn.relu %[[C]]
  // CHECK-NEXT: %[[RQ:.*]] = nn.fake_quant %[[R]] {min = array<f32: 0.000000e+00>, max = array<f32: 5.000000e+00>, num_bits = 8 : i64}
  // CHECK-NEXT: func.return %[[RQ]]
  // CHAN: nn.fake_quant %w {min = array<f32: -1.000000e+00, -2.000000e+00, -4.000000e+00>, max = array<f32: 1.000000e+00, 2.000000e+00, 4.000000e+00>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 1 : i64}
  %w = nn.constant dense<[[[[1.0, -1.0], [0.5, 0.25]], [[2.0, 0.0], [0.0, 1.0]], [[4.0, 1.0], [0.0, 0.0]]],
                          [[[0.5, -0.5], [0.5, 0.5]], [[-2.0, 0.0], [0.0, 1.0]], [[-3.0, 1.0], [0.0, 0.0]]]]> : tensor<2x3x2x2xf32>
  %b = nn.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %c = nn.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, nn.range = array<f32: -2.0, 5.0>} : (tensor<1x2x3x3xf32>, tensor<2x3x2x2xf32>, tensor<3xf32>) -> tensor<1x3x6x6xf32>
  %r = nn.relu %c {nn.range = array<f32: 0.0, 5.0>} : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  func.return %r : tensor<1x3x6x6xf32>
}

// -----

/// An NHWC transposed conv's filter is HWOI: its output channels are the
/// second to last axis.
// CHECK-LABEL: func.func @conv_transpose_nhwc
// CHAN-LABEL: func.func @conv_transpose_nhwc
func.func @conv_transpose_nhwc(%x: tensor<1x3x3x1xf32> {nn.range = array<f32: -1.0, 1.0>}) -> tensor<1x6x6x2xf32> {
  // CHECK: %[[WQ:.*]] = nn.fake_quant %w {min = array<f32: -3.000000e+00>, max = array<f32: 3.000000e+00>, num_bits = 8 : i64, narrow_range = 1 : i64}
  // CHECK-NEXT: %[[C:.*]] = nn.conv_transpose %{{.*}}, %[[WQ]] {data_layout = "NHWC", strides = array<i64: 2, 2>}
  // CHECK-NEXT: nn.fake_quant %[[C]]
  // CHAN: nn.fake_quant %w {min = array<f32: -1.000000e+00, -3.000000e+00>, max = array<f32: 1.000000e+00, 3.000000e+00>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 2 : i64}
  %w = nn.constant dense<[[[[1.0], [3.0]], [[-1.0], [0.5]]], [[[0.5], [-2.0]], [[0.25], [1.0]]]]> : tensor<2x2x2x1xf32>
  %c = nn.conv_transpose %x, %w {data_layout = "NHWC", strides = array<i64: 2, 2>, nn.range = array<f32: -2.0, 2.0>} : (tensor<1x3x3x1xf32>, tensor<2x2x2x1xf32>) -> tensor<1x6x6x2xf32>
  func.return %c : tensor<1x6x6x2xf32>
}

// -----

/// A filter computed by the graph is not a layer weight: nothing is inserted,
/// and quantize says so.
// WARN: warning: quantize: 1 of 1 convolutions and matrix products get no fake quantization (first: nn.conv_transpose c: its weights are not constants
// CHECK-LABEL: func.func @negative_conv_transpose_filter_from_graph
// CHAN-LABEL: func.func @negative_conv_transpose_filter_from_graph
func.func @negative_conv_transpose_filter_from_graph(%x: tensor<1x2x3x3xf32> {nn.range = array<f32: -1.0, 2.0>}, %w: tensor<2x3x2x2xf32>) -> tensor<1x3x6x6xf32> {
  // CHECK-NOT: nn.fake_quant
  // CHECK: nn.conv_transpose %x, %w
  // CHECK-NOT: nn.fake_quant
  %c = nn.conv_transpose %x, %w {strides = array<i64: 2, 2>, nn.range = array<f32: -2.0, 5.0>} : (tensor<1x2x3x3xf32>, tensor<2x3x2x2xf32>) -> tensor<1x3x6x6xf32>
  func.return %c : tensor<1x3x6x6xf32>
}
