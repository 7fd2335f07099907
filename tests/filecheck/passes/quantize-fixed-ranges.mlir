// RUN: graph-opt %s --split-input-file -p 'quantize{fixed-ranges=all}' | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'quantize{fixed-ranges=relu6 symmetric-activations=true}' | filecheck %s --check-prefix=SOME

/// No calibration: the relu6 after the conv takes [0, 6] (FixedQuantize) and
/// the input the range stated as its argument attribute.
// CHECK-LABEL: func.func @conv_relu6_uncalibrated
// SOME-LABEL: func.func @conv_relu6_uncalibrated
func.func @conv_relu6_uncalibrated(%x: tensor<1x2x4x4xf32> {nn.fixed_range = array<f32: -1.0, 1.0>}) -> tensor<1x2x4x4xf32> {
  // CHECK: nn.fake_quant %x {min = array<f32: -1.000000e+00>, max = array<f32: 1.000000e+00>, num_bits = 8 : i64}
  // CHECK: %[[R:.*]] = nn.clip
  // CHECK-NEXT: %[[RQ:.*]] = nn.fake_quant %[[R]] {min = array<f32: 0.000000e+00>, max = array<f32: 6.000000e+00>, num_bits = 8 : i64}
  // CHECK-NEXT: func.return %[[RQ]]
  // CHECK-NOT: nn.fixed_range
  /// A stated range is used exactly, never made symmetric.
  // SOME: nn.fake_quant %x {min = array<f32: -1.000000e+00>, max = array<f32: 1.000000e+00>
  // SOME: nn.fake_quant %{{.*}} {min = array<f32: 0.000000e+00>, max = array<f32: 6.000000e+00>
  %w = nn.constant dense<[[[[0.5]], [[0.25]]], [[[1.0]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %c = nn.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = nn.clip %c {min = 0.0 : f32, max = 6.0 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}

// -----

/// A sigmoid read straight from a matmul: [0, 1] in place of its calibrated
/// range; with fixed-ranges=relu6 the calibrated one (made symmetric) stays.
// CHECK-LABEL: func.func @matmul_sigmoid_calibrated
// SOME-LABEL: func.func @matmul_sigmoid_calibrated
func.func @matmul_sigmoid_calibrated(%x: tensor<2x3xf32> {nn.range = array<f32: -2.0, 2.0>}) -> tensor<2x2xf32> {
  // CHECK: %[[S:.*]] = nn.sigmoid
  // CHECK-NEXT: nn.fake_quant %[[S]] {min = array<f32: 0.000000e+00>, max = array<f32: 1.000000e+00>, num_bits = 8 : i64}
  // SOME: %[[S:.*]] = nn.sigmoid
  // SOME-NEXT: nn.fake_quant %[[S]] {min = array<f32: -0.907086611>, max = array<f32: 9.000000e-01>
  %w = nn.constant dense<[[1.0, -1.0], [0.5, 0.25], [2.0, 0.0]]> : tensor<3x2xf32>
  %m = nn.matmul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %s = nn.sigmoid %m {nn.range = array<f32: 0.1, 0.9>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %s : tensor<2x2xf32>
}

// -----

/// A tanh fused into the conv: [-1, 1] at the fused conv's result.
// CHECK-LABEL: func.func @fused_conv_tanh
// SOME-LABEL: func.func @fused_conv_tanh
func.func @fused_conv_tanh(%x: tensor<1x2x4x4xf32> {nn.range = array<f32: 0.0, 1.0>}) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[C:.*]] = nn.fused_conv
  // CHECK-NEXT: nn.fake_quant %[[C]] {min = array<f32: -1.000000e+00>, max = array<f32: 1.000000e+00>, num_bits = 8 : i64}
  // SOME: %[[C:.*]] = nn.fused_conv
  // SOME-NEXT: nn.fake_quant %[[C]] {min = array<f32: -5.039370e-01>, max = array<f32: 5.000000e-01>
  %w = nn.constant dense<[[[[0.5]], [[0.25]]], [[[1.0]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %c = nn.fused_conv %x, %w {activation = "tanh", nn.range = array<f32: -0.5, 0.5>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %c : tensor<1x2x4x4xf32>
}

// -----

/// A range stated on an op wins over the calibrated one, option or not.
// CHECK-LABEL: func.func @stated_range_on_op
// SOME-LABEL: func.func @stated_range_on_op
func.func @stated_range_on_op(%x: tensor<1x2x4x4xf32> {nn.range = array<f32: 0.0, 1.0>}) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[C:.*]] = nn.conv
  // CHECK-NEXT: nn.fake_quant %[[C]] {min = array<f32: -4.000000e+00>, max = array<f32: 4.000000e+00>, num_bits = 8 : i64}
  // SOME: %[[C:.*]] = nn.conv
  // SOME-NEXT: nn.fake_quant %[[C]] {min = array<f32: -4.000000e+00>, max = array<f32: 4.000000e+00>
  %w = nn.constant dense<[[[[0.5]], [[0.25]]], [[[1.0]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %c = nn.conv %x, %w {nn.range = array<f32: -0.1, 2.5>, nn.fixed_range = array<f32: -4.0, 4.0>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %c : tensor<1x2x4x4xf32>
}

// -----

/// A relu has no known upper bound: its calibrated range is kept.
// CHECK-LABEL: func.func @negative_relu_keeps_calibrated_range
// SOME-LABEL: func.func @negative_relu_keeps_calibrated_range
func.func @negative_relu_keeps_calibrated_range(%x: tensor<1x2x4x4xf32> {nn.range = array<f32: 0.0, 1.0>}) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[R:.*]] = nn.relu
  // CHECK-NEXT: nn.fake_quant %[[R]] {min = array<f32: 0.000000e+00>, max = array<f32: 3.500000e+00>, num_bits = 8 : i64}
  %w = nn.constant dense<[[[[0.5]], [[0.25]]], [[[1.0]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %c = nn.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = nn.relu %c {nn.range = array<f32: 0.0, 3.5>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}
