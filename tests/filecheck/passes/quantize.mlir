// RUN: graph-opt %s --split-input-file -p quantize | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'quantize{per-channel=true symmetric-activations=true weight-bits=4 activation-bits=6}' | filecheck %s --check-prefix=OPTS
// RUN: graph-opt %s --split-input-file -p 'quantize{exclude="^head"}' | filecheck %s --check-prefix=EXCL
// RUN: graph-opt %s --split-input-file -p 'quantize{include="^head"}' | filecheck %s --check-prefix=INCL

/// Conv (bias folded in) + relu: a narrow-range weight fake_quant with the
/// weight's symmetric range, and one fake_quant after the relu with the
/// calibrated range; nothing between the conv and the relu. The input has
/// no calibrated range: it stays float (with a warning).
// CHECK-LABEL: func.func @conv_relu
// OPTS-LABEL: func.func @conv_relu
func.func @conv_relu(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[WQ:.*]] = nn.fake_quant %w {min = array<f32: -2.000000e+00>, max = array<f32: 2.000000e+00>, num_bits = 8 : i64, narrow_range = 1 : i64}
  // CHECK-NEXT: %[[C:.*]] = nn.conv %x, %[[WQ]], %b :
  // CHECK-NEXT: %[[R:.*]] = nn.relu %[[C]] :
  // CHECK-NEXT: %[[RQ:.*]] = nn.fake_quant %[[R]] {min = array<f32: 0.000000e+00>, max = array<f32: 3.500000e+00>, num_bits = 8 : i64}
  // CHECK-NEXT: func.return %[[RQ]]
  // CHECK-NOT: nn.range
  /// Per channel over the filter's output axis 0, symmetric ranges.
  // OPTS: nn.fake_quant %w {min = array<f32: -5.000000e-01, -2.000000e+00>, max = array<f32: 5.000000e-01, 2.000000e+00>, num_bits = 4 : i64, narrow_range = 1 : i64, axis = 0 : i64}
  // OPTS: nn.fake_quant %{{.*}} {min = array<f32: -3.61290312>, max = array<f32: 3.500000e+00>, num_bits = 6 : i64}
  %w = nn.constant dense<[[[[0.5]], [[0.25]]], [[[1.0]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %b = nn.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %c = nn.conv %x, %w, %b {nn.range = array<f32: -1.0, 3.5>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %r = nn.relu %c {nn.range = array<f32: 0.0, 3.5>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}

// -----

/// A layer without activation is quantized at its own output; NHWC filters
/// (HWIO) have their output channels last.
// CHECK-LABEL: func.func @conv_nhwc_without_activation
// OPTS-LABEL: func.func @conv_nhwc_without_activation
func.func @conv_nhwc_without_activation(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x2xf32> {
  // CHECK: %[[WQ:.*]] = nn.fake_quant %w
  // CHECK-NEXT: %[[C:.*]] = nn.conv %x, %[[WQ]] {data_layout = "NHWC"}
  // CHECK-NEXT: %[[CQ:.*]] = nn.fake_quant %[[C]] {min = array<f32: -2.000000e+00>, max = array<f32: 1.000000e+00>, num_bits = 8 : i64}
  // CHECK-NEXT: func.return %[[CQ]]
  // OPTS: nn.fake_quant %w {{{.*}}axis = 3 : i64}
  %w = nn.constant dense<[[[[1.0, -3.0]]]]> : tensor<1x1x1x2xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC", nn.range = array<f32: -2.0, 1.0>} : (tensor<1x4x4x1xf32>, tensor<1x1x1x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %c : tensor<1x4x4x2xf32>
}

// -----

/// A calibrated graph input is fake-quantized too (full-integer PTQ), with
/// its asymmetric range widened to 0.
// CHECK-LABEL: func.func @graph_input_quantized
// OPTS-LABEL: func.func @graph_input_quantized
func.func @graph_input_quantized(%x: tensor<1x2x4x4xf32> {nn.range = array<f32: 0.5, 4.0>}) -> tensor<1x2x4x4xf32> {
  // CHECK-NEXT: %[[XQ:.*]] = nn.fake_quant %x {min = array<f32: 0.000000e+00>, max = array<f32: 4.000000e+00>, num_bits = 8 : i64}
  // CHECK: nn.conv %[[XQ]]
  // CHECK-NOT: nn.range
  %w = nn.constant dense<[[[[0.5]], [[0.25]]], [[[1.0]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %c = nn.conv %x, %w {nn.range = array<f32: -1.0, 3.5>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %c : tensor<1x2x4x4xf32>
}

// -----

/// MatMul + bias add + relu6 (clip): the fake_quant follows the clip.
// CHECK-LABEL: func.func @matmul_bias_relu6
// OPTS-LABEL: func.func @matmul_bias_relu6
func.func @matmul_bias_relu6(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // CHECK: %[[WQ:.*]] = nn.fake_quant %w
  // CHECK-NEXT: %[[M:.*]] = nn.matmul %x, %[[WQ]]
  // CHECK-NEXT: %[[A:.*]] = nn.add %[[M]], %b
  // CHECK-NEXT: %[[R:.*]] = nn.clip %[[A]]
  // CHECK-NEXT: %[[RQ:.*]] = nn.fake_quant %[[R]] {min = array<f32: 0.000000e+00>, max = array<f32: 6.000000e+00>, num_bits = 8 : i64}
  // CHECK-NEXT: func.return %[[RQ]]
  // OPTS: nn.fake_quant %w {{{.*}}axis = 1 : i64}
  %w = nn.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %b = nn.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %m = nn.matmul %x, %w {nn.range = array<f32: -9.0, 9.0>} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %a = nn.add %m, %b {nn.range = array<f32: -8.0, 9.0>} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %r = nn.clip %a {min = 0.0 : f32, max = 6.0 : f32, nn.range = array<f32: 0.0, 6.0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %r : tensor<2x2xf32>
}

// -----

/// A gemm with trans_b has its output channels on axis 0 of b.
// CHECK-LABEL: func.func @gemm_trans_b
// OPTS-LABEL: func.func @gemm_trans_b
func.func @gemm_trans_b(%x: tensor<1x3xf32>) -> tensor<1x2xf32> {
  // CHECK: nn.fake_quant %w
  // CHECK: nn.gemm
  // CHECK-NEXT: nn.fake_quant
  // OPTS: nn.fake_quant %w {{{.*}}axis = 0 : i64}
  %w = nn.constant dense<[[1.0, 2.0, 3.0], [-4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %g = nn.gemm %x, %w {trans_b = 1 : i64, nn.range = array<f32: -1.0, 1.0>} : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<1x2xf32>
  func.return %g : tensor<1x2xf32>
}

// -----

/// A residual add before the activation: fake_quants on both of its inputs
/// and after the relu that follows it, none between the add and the relu.
// CHECK-LABEL: func.func @bypass_before_activation
// OPTS-LABEL: func.func @bypass_before_activation
func.func @bypass_before_activation(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[S:.*]] = nn.sigmoid %x
  // CHECK-NEXT: %[[SQ:.*]] = nn.fake_quant %[[S]] {min = array<f32: 0.000000e+00>, max = array<f32: 1.000000e+00>
  // CHECK: %[[C:.*]] = nn.conv
  // CHECK-NEXT: %[[CQ:.*]] = nn.fake_quant %[[C]] {min = array<f32: -2.000000e+00>, max = array<f32: 2.000000e+00>
  // CHECK-NEXT: %[[A:.*]] = nn.add %[[CQ]], %[[SQ]]
  // CHECK-NEXT: %[[R:.*]] = nn.relu %[[A]]
  // CHECK-NEXT: %[[RQ:.*]] = nn.fake_quant %[[R]] {min = array<f32: 0.000000e+00>, max = array<f32: 3.000000e+00>
  // CHECK-NEXT: func.return %[[RQ]]
  %s = nn.sigmoid %x {nn.range = array<f32: 0.25, 1.0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %w = nn.constant dense<0.5> : tensor<2x2x1x1xf32>
  %c = nn.conv %x, %w {nn.range = array<f32: -2.0, 2.0>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %a = nn.add %c, %s {nn.range = array<f32: -1.0, 3.0>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r = nn.relu %a {nn.range = array<f32: 0.0, 3.0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}

// -----

/// An add after the activation (post-activation bypass): the activation and
/// the add's output are quantized; the graph input is left to the runtime.
// CHECK-LABEL: func.func @post_activation_bypass
// OPTS-LABEL: func.func @post_activation_bypass
func.func @post_activation_bypass(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[R:.*]] = nn.relu
  // CHECK-NEXT: %[[RQ:.*]] = nn.fake_quant %[[R]] {min = array<f32: 0.000000e+00>, max = array<f32: 2.000000e+00>
  // CHECK-NEXT: %[[A:.*]] = nn.add %[[RQ]], %x
  // CHECK-NEXT: %[[AQ:.*]] = nn.fake_quant %[[A]] {min = array<f32: -3.000000e+00>, max = array<f32: 4.000000e+00>
  // CHECK-NEXT: func.return %[[AQ]]
  %w = nn.constant dense<0.5> : tensor<2x2x1x1xf32>
  %c = nn.conv %x, %w {nn.range = array<f32: -2.0, 2.0>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = nn.relu %c {nn.range = array<f32: 0.0, 2.0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a = nn.add %r, %x {nn.range = array<f32: -3.0, 4.0>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %a : tensor<1x2x4x4xf32>
}

// -----

/// A fused conv carries its activation: quantized right after it.
// CHECK-LABEL: func.func @fused_conv
// OPTS-LABEL: func.func @fused_conv
func.func @fused_conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[WQ:.*]] = nn.fake_quant %w
  // CHECK-NEXT: %[[C:.*]] = nn.fused_conv %x, %[[WQ]] {activation = "relu"}
  // CHECK-NEXT: %[[CQ:.*]] = nn.fake_quant %[[C]] {min = array<f32: 0.000000e+00>, max = array<f32: 5.000000e+00>
  // CHECK-NEXT: func.return %[[CQ]]
  %w = nn.constant dense<0.5> : tensor<2x2x1x1xf32>
  %c = nn.fused_conv %x, %w {activation = "relu", nn.range = array<f32: 0.0, 5.0>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %c : tensor<1x2x4x4xf32>
}

// -----

/// An activation with no int8 form read straight from the layer (a
/// hard_swish after a gemm, which fuse-ops does not fuse) counts as fused:
/// one fake_quant after it, none between them, as convert-to-int runs it on
/// the dequantized accumulator.
// CHECK-LABEL: func.func @gemm_float_activation
// OPTS-LABEL: func.func @gemm_float_activation
func.func @gemm_float_activation(%x: tensor<1x3xf32>) -> tensor<1x2xf32> {
  // CHECK: %[[G:.*]] = nn.gemm
  // CHECK-NEXT: %[[H:.*]] = nn.hard_swish %[[G]]
  // CHECK-NEXT: %[[HQ:.*]] = nn.fake_quant %[[H]] {min = array<f32: -3.750000e-01>, max = array<f32: 2.000000e+00>
  // CHECK-NEXT: func.return %[[HQ]]
  // OPTS: nn.hard_swish
  // OPTS-NEXT: nn.fake_quant
  // OPTS-NEXT: func.return
  %w = nn.constant dense<[[1.0, 2.0, 3.0], [-4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %g = nn.gemm %x, %w {trans_b = 1 : i64, nn.range = array<f32: -1.0, 2.5>} : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<1x2xf32>
  %h = nn.hard_swish %g {nn.range = array<f32: -0.375, 2.0>} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  func.return %h : tensor<1x2xf32>
}

// -----

/// A sigmoid that is not the layer's only user is not followed: the layer
/// is quantized at its own output.
// CHECK-LABEL: func.func @negative_float_activation_with_two_users
// OPTS-LABEL: func.func @negative_float_activation_with_two_users
func.func @negative_float_activation_with_two_users(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  // CHECK: %[[M:.*]] = nn.matmul
  // CHECK-NEXT: %[[MQ:.*]] = nn.fake_quant %[[M]] {min = array<f32: -1.000000e+00>, max = array<f32: 1.000000e+00>
  // CHECK-NEXT: nn.sigmoid %[[MQ]]
  // CHECK-NOT: nn.fake_quant
  // CHECK: func.return
  %w = nn.constant dense<[[1.0, -1.0], [2.0, 0.5]]> : tensor<2x2xf32>
  %m = nn.matmul %x, %w {nn.range = array<f32: -1.0, 1.0>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = nn.sigmoid %m {nn.range = array<f32: 0.25, 0.75>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %m, %s : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

/// When the layer's result has another user, the quantization point is the
/// layer itself and the relu is not followed.
// CHECK-LABEL: func.func @layer_with_two_users
// OPTS-LABEL: func.func @layer_with_two_users
func.func @layer_with_two_users(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  // CHECK: %[[M:.*]] = nn.matmul
  // CHECK-NEXT: %[[MQ:.*]] = nn.fake_quant %[[M]]
  // CHECK-NEXT: nn.relu %[[MQ]]
  // CHECK-NOT: nn.fake_quant
  // CHECK: func.return
  %w = nn.constant dense<[[1.0, -1.0], [2.0, 0.5]]> : tensor<2x2xf32>
  %m = nn.matmul %x, %w {nn.range = array<f32: -1.0, 1.0>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = nn.relu %m {nn.range = array<f32: 0.0, 1.0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %m, %r : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

/// A matmul of two computed tensors (attention scores) is not a layer.
// CHECK-LABEL: func.func @negative_matmul_without_weights
// OPTS-LABEL: func.func @negative_matmul_without_weights
func.func @negative_matmul_without_weights(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // CHECK-NOT: nn.fake_quant
  // OPTS-NOT: nn.fake_quant
  %m = nn.matmul %x, %y {nn.range = array<f32: -1.0, 1.0>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %m : tensor<2x2xf32>
}

// -----

/// A quantization-aware-training graph (TF FakeQuant imported) keeps its ranges.
// CHECK-LABEL: func.func @negative_already_quantized
// OPTS-LABEL: func.func @negative_already_quantized
func.func @negative_already_quantized(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // CHECK: nn.fake_quant %w {min = array<f32: -1.000000e+00>, max = array<f32: 1.000000e+00>, num_bits = 8 : i64, narrow_range = 1 : i64}
  // CHECK: nn.fake_quant %{{.*}} {min = array<f32: 0.000000e+00>, max = array<f32: 6.000000e+00>, num_bits = 8 : i64}
  // CHECK-NOT: nn.fake_quant
  // OPTS-COUNT-2: nn.fake_quant
  // OPTS-NOT: nn.fake_quant
  %w = nn.constant dense<[[1.0, -1.0], [0.5, 0.5]]> : tensor<2x2xf32>
  %wq = nn.fake_quant %w {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = nn.matmul %x, %wq : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = nn.relu %m : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %rq = nn.fake_quant %r {min = array<f32: 0.0>, max = array<f32: 6.0>, num_bits = 8 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %rq : tensor<2x2xf32>
}

// -----

/// A layer output that only a concat reads takes the concat's range (when
/// the concat's result is quantized, here as the next layer's input): it is
/// rounded once, to the concat's grid. One that is also returned keeps its own.
// CHECK-LABEL: func.func @concat_input_takes_concat_range
// OPTS-LABEL: func.func @concat_input_takes_concat_range
func.func @concat_input_takes_concat_range(%x: tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  // CHECK: %[[A:.*]] = nn.matmul
  // CHECK-NEXT: nn.fake_quant %[[A]] {min = array<f32: -1.000000e+00>, max = array<f32: 4.000000e+00>
  // CHECK: %[[B:.*]] = nn.matmul
  // CHECK-NEXT: nn.fake_quant %[[B]] {min = array<f32: 0.000000e+00>, max = array<f32: 4.000000e+00>
  // CHECK: %[[C:.*]] = nn.concat
  // CHECK-NEXT: nn.fake_quant %[[C]] {min = array<f32: -1.000000e+00>, max = array<f32: 4.000000e+00>
  // OPTS: nn.concat
  %w = nn.constant dense<[[1.0, -1.0], [2.0, 0.5]]> : tensor<2x2xf32>
  %a = nn.matmul %x, %w {nn.range = array<f32: -1.0, 1.0>} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %b = nn.matmul %x, %w {nn.range = array<f32: 0.5, 4.0>} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %c = nn.concat %a, %b {axis = 1 : i64, nn.range = array<f32: -1.0, 4.0>} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
  %v = nn.constant dense<0.5> : tensor<4x2xf32>
  %m = nn.matmul %c, %v {nn.range = array<f32: -2.0, 2.0>} : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  func.return %m, %b : tensor<1x2xf32>, tensor<1x2xf32>
}

// -----

/// A bias computed from constants (a frozen Keras bias, reshaped and squeezed)
/// becomes a constant: the bias add is part of the layer, not a residual add
/// whose input is an activation to quantize.
// CHECK-LABEL: func.func @computed_bias
// OPTS-LABEL: func.func @computed_bias
func.func @computed_bias(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // CHECK-NOT: nn.squeeze
  // CHECK: %[[Y:.*]] = nn.matmul
  // CHECK-NEXT: %[[B:.*]] = nn.constant dense<[1.000000e-01, -2.000000e-01]> : tensor<2xf32>
  // CHECK-NEXT: %[[Z:.*]] = nn.add %[[Y]], %[[B]] :
  // CHECK-NEXT: %[[ZQ:.*]] = nn.fake_quant %[[Z]] {min = array<f32: -1.000000e+00>, max = array<f32: 2.000000e+00>, num_bits = 8 : i64}
  // CHECK-NEXT: func.return %[[ZQ]]
  %w = nn.constant dense<[[0.5, -1.0], [0.25, 2.0], [-0.75, 1.5]]> : tensor<3x2xf32>
  %b_row = nn.constant dense<[[0.1, -0.2]]> : tensor<1x2xf32>
  %b = nn.squeeze %b_row {nn.range = array<f32: -0.2, 0.1>} : (tensor<1x2xf32>) -> tensor<2xf32>
  %y = nn.matmul %x, %w {nn.range = array<f32: -1.0, 2.0>} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %z = nn.add %y, %b {nn.range = array<f32: -1.0, 2.0>} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  func.return %z : tensor<2x2xf32>
}

// -----

/// A concat whose result no layer reads gets no fake quantization: its
/// inputs keep their own ranges.
// CHECK-LABEL: func.func @negative_concat_not_quantized
// OPTS-LABEL: func.func @negative_concat_not_quantized
func.func @negative_concat_not_quantized(%x: tensor<1x2xf32>) -> tensor<1x4xf32> {
  // CHECK: %[[A:.*]] = nn.matmul
  // CHECK-NEXT: nn.fake_quant %[[A]] {min = array<f32: -1.000000e+00>, max = array<f32: 1.000000e+00>
  // CHECK: %[[B:.*]] = nn.matmul
  // CHECK-NEXT: nn.fake_quant %[[B]] {min = array<f32: 0.000000e+00>, max = array<f32: 4.000000e+00>
  // CHECK: %[[C:.*]] = nn.concat
  // CHECK-NEXT: func.return %[[C]]
  // OPTS: nn.concat
  %w = nn.constant dense<[[1.0, -1.0], [2.0, 0.5]]> : tensor<2x2xf32>
  %a = nn.matmul %x, %w {nn.range = array<f32: -1.0, 1.0>} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %b = nn.matmul %x, %w {nn.range = array<f32: 0.5, 4.0>} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %c = nn.concat %a, %b {axis = 1 : i64, nn.range = array<f32: -1.0, 4.0>} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
  func.return %c : tensor<1x4xf32>
}

// -----

/// A classifier's logits that only a softmax reads are not rounded: no
/// fake_quant after the gemm, nor after the softmax (no layer reads it);
/// convert-to-int runs the softmax on the dequantized accumulator.
// CHECK-LABEL: func.func @classifier_softmax
// OPTS-LABEL: func.func @classifier_softmax
func.func @classifier_softmax(%x: tensor<1x3xf32> {nn.range = array<f32: -1.0, 1.0>}) -> tensor<1x2xf32> {
  // CHECK: %[[G:.*]] = nn.gemm
  // CHECK-NEXT: %[[S:.*]] = nn.softmax %[[G]]
  // CHECK-NEXT: func.return %[[S]]
  // OPTS: nn.gemm
  // OPTS-NEXT: nn.softmax
  %w = nn.constant dense<[[1.0, 2.0, 3.0], [-4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %g = nn.gemm %x, %w {trans_b = 1 : i64, nn.range = array<f32: -1.0, 2.5>} : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<1x2xf32>
  %s = nn.softmax %g {nn.range = array<f32: 0.0, 1.0>} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  func.return %s : tensor<1x2xf32>
}

// -----

/// A softmax after a separate bias add does not read the layer: the biased
/// logits are quantized as usual.
// CHECK-LABEL: func.func @negative_softmax_after_bias_add
// OPTS-LABEL: func.func @negative_softmax_after_bias_add
func.func @negative_softmax_after_bias_add(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  // CHECK: %[[A:.*]] = nn.add
  // CHECK-NEXT: %[[AQ:.*]] = nn.fake_quant %[[A]] {min = array<f32: -1.000000e+00>, max = array<f32: 2.000000e+00>
  // CHECK-NEXT: nn.softmax %[[AQ]]
  // OPTS: nn.softmax
  %w = nn.constant dense<[[1.0, -1.0], [2.0, 0.5]]> : tensor<2x2xf32>
  %b = nn.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %m = nn.matmul %x, %w {nn.range = array<f32: -1.0, 1.0>} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %a = nn.add %m, %b {nn.range = array<f32: -1.0, 2.0>} : (tensor<1x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %s = nn.softmax %a {nn.range = array<f32: 0.0, 1.0>} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  func.return %s : tensor<1x2xf32>
}

// -----

/// An all-zero weight and a tensor calibrated as only 0 get a scale of 1
/// (TFLite's choice), not an empty range that no export can express.
// CHECK-LABEL: func.func @zero_ranges
// OPTS-LABEL: func.func @zero_ranges
func.func @zero_ranges(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // CHECK: nn.fake_quant %w {min = array<f32: -1.270000e+02>, max = array<f32: 1.270000e+02>, num_bits = 8 : i64, narrow_range = 1 : i64}
  // CHECK: nn.fake_quant %{{.*}} {min = array<f32: 0.000000e+00>, max = array<f32: 2.550000e+02>, num_bits = 8 : i64}
  %w = nn.constant dense<0.0> : tensor<3x2xf32>
  %y = nn.matmul %x, %w {nn.range = array<f32: 0.0, 0.0>} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  func.return %y : tensor<2x2xf32>
}

// -----

/// include / exclude select layers by name (here the SSA names).
// CHECK-LABEL: func.func @selected_by_name
// EXCL-LABEL: func.func @selected_by_name
// INCL-LABEL: func.func @selected_by_name
// OPTS-LABEL: func.func @selected_by_name
func.func @selected_by_name(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // CHECK-COUNT-4: nn.fake_quant
  // EXCL: %[[WQ:.*]] = nn.fake_quant %w
  // EXCL-NEXT: %[[B:.*]] = nn.matmul %x, %[[WQ]]
  // EXCL-NEXT: nn.fake_quant %[[B]]
  // EXCL-NEXT: nn.matmul %{{.*}}, %w :
  // EXCL-NOT: nn.fake_quant
  /// head's input, the float body, is quantized for head (full-integer).
  // INCL: %[[B:.*]] = nn.matmul %x, %w :
  // INCL-NEXT: %[[BQ:.*]] = nn.fake_quant %[[B]]
  // INCL: nn.matmul %[[BQ]], %{{.*}}_quant
  // INCL-NEXT: nn.fake_quant
  %w = nn.constant dense<[[1.0, -1.0], [2.0, 0.5]]> : tensor<2x2xf32>
  %body = nn.matmul %x, %w {nn.range = array<f32: -1.0, 1.0>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %head = nn.matmul %body, %w {nn.range = array<f32: -2.0, 2.0>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %head : tensor<2x2xf32>
}

