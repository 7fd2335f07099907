// RUN: graph-opt %s --split-input-file -p fold-bn | filecheck %s

/// w' = w * gamma / sqrt(var + eps), b' = (b - mean) * gamma / sqrt(var + eps) + beta:
/// with eps = 1 and var = 3 the scales are gamma / 2 = [1, 2].
// CHECK-LABEL: func.func @conv_bn_exact_values
func.func @conv_bn_exact_values(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK-DAG: %[[W:.*]] = nn.constant dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}2.000000e+00]]]]> : tensor<2x1x1x1xf32>
  // CHECK-DAG: %[[B:.*]] = nn.constant dense<[5.000000e-01, 2.500000e+00]> : tensor<2xf32>
  // CHECK: %[[Y:.*]] = nn.conv %x, %[[W]], %[[B]]
  // CHECK-NOT: nn.batch_norm
  // CHECK: func.return %[[Y]]
  %w = nn.constant dense<1.0> : tensor<2x1x1x1xf32>
  %b = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %gamma = nn.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %y = nn.conv %x, %w, %b : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %z = nn.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %z : tensor<1x2x4x4xf32>
}

// -----

/// A conv without bias gets one; the NHWC filter (HWIO) is scaled on its last axis.
// CHECK-LABEL: func.func @conv_nhwc_without_bias
func.func @conv_nhwc_without_bias(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x2xf32> {
  // CHECK-DAG: %[[W:.*]] = nn.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00]]]]> : tensor<1x1x1x2xf32>
  // CHECK-DAG: %[[B:.*]] = nn.constant dense<[-5.000000e-01, -1.500000e+00]> : tensor<2xf32>
  // CHECK: nn.conv %x, %[[W]], %[[B]] {data_layout = "NHWC"}
  // CHECK-NOT: nn.batch_norm
  %w = nn.constant dense<1.0> : tensor<1x1x1x2xf32>
  %gamma = nn.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %y = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x4x4x1xf32>, tensor<1x1x1x2xf32>) -> tensor<1x4x4x2xf32>
  %z = nn.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32, data_layout = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  func.return %z : tensor<1x4x4x2xf32>
}

// -----

/// Grouped conv_transpose (IOHW, group 2): output channel g * 1 + j of filter row i
/// in group g; the filter's rows 0 and 1 take scales 1 and 2.
// CHECK-LABEL: func.func @conv_transpose_grouped
func.func @conv_transpose_grouped(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // CHECK-DAG: %[[W:.*]] = nn.constant dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}2.000000e+00]]]]> : tensor<2x1x1x1xf32>
  // CHECK: nn.conv_transpose %x, %[[W]], %{{.*}} {group = 2 : i64}
  // CHECK-NOT: nn.batch_norm
  %w = nn.constant dense<1.0> : tensor<2x1x1x1xf32>
  %gamma = nn.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %y = nn.conv_transpose %x, %w {group = 2 : i64} : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %z = nn.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  func.return %z : tensor<1x2x3x3xf32>
}

// -----

/// A matmul has no bias: the shift becomes an add after it.
// CHECK-LABEL: func.func @matmul_bn
func.func @matmul_bn(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // CHECK-DAG: %[[W:.*]] = nn.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [1.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
  // CHECK-DAG: %[[T:.*]] = nn.constant dense<[-5.000000e-01, -1.500000e+00]> : tensor<2xf32>
  // CHECK: %[[M:.*]] = nn.matmul %x, %[[W]]
  // CHECK-NEXT: %[[Y:.*]] = nn.add %[[M]], %[[T]]
  // CHECK-NEXT: func.return %[[Y]]
  %w = nn.constant dense<1.0> : tensor<2x2xf32>
  %gamma = nn.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %y = nn.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %z = nn.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %z : tensor<3x2xf32>
}

// -----

/// Gemm with trans_b scales the rows of b; c becomes beta * c * s + t and beta 1.
// CHECK-LABEL: func.func @gemm_trans_b_bn
func.func @gemm_trans_b_bn(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // CHECK-DAG: %[[B:.*]] = nn.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
  // CHECK-DAG: %[[C:.*]] = nn.constant dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf32>
  // CHECK: nn.gemm %x, %[[B]], %[[C]] {trans_b = 1 : i64, beta = 1.000000e+00 : f32}
  // CHECK-NOT: nn.batch_norm
  %b = nn.constant dense<1.0> : tensor<2x2xf32>
  %c = nn.constant dense<1.0> : tensor<2xf32>
  %gamma = nn.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %y = nn.gemm %x, %b, %c {trans_b = 1 : i64, beta = 2.0 : f32} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %z = nn.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %z : tensor<3x2xf32>
}

// -----

/// The BN folds through a per-channel bias-add, an identity and a reshape that merges
/// spatial dims; the add goes, the identity and reshape stay.
// CHECK-LABEL: func.func @bias_add_identity_reshape
func.func @bias_add_identity_reshape(%x: tensor<2x1x4x4xf32>) -> tensor<2x2x16xf32> {
  // CHECK-DAG: %[[B:.*]] = nn.constant dense<[5.000000e-01, 2.500000e+00]> : tensor<2xf32>
  // CHECK: %[[Y:.*]] = nn.conv %x, %{{.*}}, %[[B]] :
  // CHECK-NEXT: %[[I:.*]] = nn.identity %[[Y]]
  // CHECK-NEXT: %[[R:.*]] = nn.reshape %[[I]]
  // CHECK-NEXT: func.return %[[R]]
  %w = nn.constant dense<1.0> : tensor<2x1x1x1xf32>
  %bias = nn.constant dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>
  %shape = nn.constant dense<[2, 2, 16]> : tensor<3xi64>
  %gamma = nn.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %y = nn.conv %x, %w : (tensor<2x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<2x2x4x4xf32>
  %a = nn.add %y, %bias : (tensor<2x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<2x2x4x4xf32>
  %i = nn.identity %a : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %r = nn.reshape %i, %shape : (tensor<2x2x4x4xf32>, tensor<3xi64>) -> tensor<2x2x16xf32>
  %z = nn.batch_norm %r, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<2x2x16xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2x16xf32>
  func.return %z : tensor<2x2x16xf32>
}

// -----

/// A decomposed batch norm (x * s + t with per-channel constants) folds like one.
// CHECK-LABEL: func.func @decomposed_bn
func.func @decomposed_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK-DAG: %[[W:.*]] = nn.constant dense<{{\[\[\[\[}}3.000000e+00]]], {{\[\[\[}}4.000000e+00]]]]> : tensor<2x1x1x1xf32>
  // CHECK-DAG: %[[B:.*]] = nn.constant dense<[5.000000e+00, 6.000000e+00]> : tensor<2xf32>
  // CHECK: %[[Y:.*]] = nn.conv %x, %[[W]], %[[B]]
  // CHECK-NEXT: func.return %[[Y]]
  %w = nn.constant dense<1.0> : tensor<2x1x1x1xf32>
  %s = nn.constant dense<[[[3.0]], [[4.0]]]> : tensor<2x1x1xf32>
  %t = nn.constant dense<[[[[5.0]], [[6.0]]]]> : tensor<1x2x1x1xf32>
  %y = nn.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %m = nn.mul %y, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %a = nn.add %m, %t : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %a : tensor<1x2x4x4xf32>
}

// -----

/// BN before an unpadded conv: the scale goes into the filter, the shift into the bias
/// (b + sum of w * t = 0 + 2 * (-0.5) + 3 * (0.5 - 2) = -5.5).
// CHECK-LABEL: func.func @bn_before_unpadded_conv
func.func @bn_before_unpadded_conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK-DAG: %[[W:.*]] = nn.constant dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}6.000000e+00]]]]> : tensor<1x2x1x1xf32>
  // CHECK-DAG: %[[B:.*]] = nn.constant dense<-5.500000e+00> : tensor<1xf32>
  // CHECK: %[[Y:.*]] = nn.conv %x, %[[W]], %[[B]]
  // CHECK-NEXT: func.return %[[Y]]
  %gamma = nn.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %w = nn.constant dense<[[[[2.0]], [[3.0]]]]> : tensor<1x2x1x1xf32>
  %n = nn.batch_norm %x, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = nn.conv %n, %w : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
  func.return %y : tensor<1x1x4x4xf32>
}

// -----

/// The filter is shared: the folded conv gets a copy, the other conv keeps the original.
// CHECK-LABEL: func.func @shared_weights_copied
func.func @shared_weights_copied(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  // CHECK-DAG: %[[W:.*]] = nn.constant dense<1.000000e+00> : tensor<2x1x1x1xf32>
  // CHECK-DAG: %[[WF:.*]] = nn.constant dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}2.000000e+00]]]]> : tensor<2x1x1x1xf32>
  // CHECK-DAG: nn.conv %x, %[[WF]], %{{.*}} :
  // CHECK-DAG: nn.conv %x, %[[W]] :
  // CHECK-NOT: nn.batch_norm
  %w = nn.constant dense<1.0> : tensor<2x1x1x1xf32>
  %gamma = nn.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %y = nn.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %z = nn.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %other = nn.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %z, %other : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

/// The conv result has another user, which a fold would change.
// CHECK-LABEL: func.func @negative_extra_user
func.func @negative_extra_user(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  // CHECK: %[[Y:.*]] = nn.conv %x, %w :
  // CHECK-NEXT: nn.batch_norm %[[Y]], %gamma
  // CHECK-NEXT: nn.relu %[[Y]]
  %w = nn.constant dense<1.0> : tensor<2x1x1x1xf32>
  %gamma = nn.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %y = nn.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %z = nn.batch_norm %y, %gamma, %beta, %mean, %var : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %r = nn.relu %y : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %z, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

/// The BN scale is a function argument.
// CHECK-LABEL: func.func @negative_non_constant_params
func.func @negative_non_constant_params(%x: tensor<1x1x4x4xf32>, %gamma: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[Y:.*]] = nn.conv %x, %w :
  // CHECK-NEXT: nn.batch_norm %[[Y]], %gamma
  %w = nn.constant dense<1.0> : tensor<2x1x1x1xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %y = nn.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %z = nn.batch_norm %y, %gamma, %beta, %mean, %var : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %z : tensor<1x2x4x4xf32>
}

// -----

/// The conv after the BN pads with zeros, where the BN'd input would have been shifted.
// CHECK-LABEL: func.func @negative_padded_conv_after_bn
func.func @negative_padded_conv_after_bn(%x: tensor<1x2x4x4xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK: %[[N:.*]] = nn.batch_norm %x
  // CHECK-NEXT: nn.conv %[[N]], %w {pads = array<i64: 1, 1, 1, 1>}
  %gamma = nn.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %w = nn.constant dense<1.0> : tensor<1x2x3x3xf32>
  %n = nn.batch_norm %x, %gamma, %beta, %mean, %var : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = nn.conv %n, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<1x2x3x3xf32>) -> tensor<1x1x4x4xf32>
  func.return %y : tensor<1x1x4x4xf32>
}

// -----

/// A reshape that splits the channel axis: the BN's channels are not the conv's.
// CHECK-LABEL: func.func @negative_reshape_splitting_channels
func.func @negative_reshape_splitting_channels(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2x2xf32> {
  // CHECK: nn.reshape
  // CHECK-NEXT: nn.batch_norm
  %w = nn.constant dense<1.0> : tensor<4x1x1x1xf32>
  %shape = nn.constant dense<[1, 2, 2, 2, 2]> : tensor<5xi64>
  %gamma = nn.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = nn.constant dense<0.5> : tensor<2xf32>
  %mean = nn.constant dense<1.0> : tensor<2xf32>
  %var = nn.constant dense<3.0> : tensor<2xf32>
  %y = nn.conv %x, %w : (tensor<1x1x2x2xf32>, tensor<4x1x1x1xf32>) -> tensor<1x4x2x2xf32>
  %r = nn.reshape %y, %shape : (tensor<1x4x2x2xf32>, tensor<5xi64>) -> tensor<1x2x2x2x2xf32>
  %z = nn.batch_norm %r, %gamma, %beta, %mean, %var : (tensor<1x2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2x2xf32>
  func.return %z : tensor<1x2x2x2x2xf32>
}

// -----

/// Batch norms computed from constants through identities (what a frozen Keras
/// model has): the scale and shift are evaluated, the conv takes them.
// CHECK-LABEL: func.func @decomposed_bn_through_identities
// CHECK-NEXT:    %[[B:.*]] = nn.constant dense<5.000000e-01> : tensor<2xf32>
// CHECK-NEXT:    %[[W:.*]] = nn.constant dense<3.000000e+00> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = nn.conv %x, %[[W]], %[[B]]
// CHECK-NEXT:    func.return %[[C]]
func.func @decomposed_bn_through_identities(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w0 = nn.constant dense<1.5> : tensor<2x1x1x1xf32>
  %w = nn.identity %w0 : (tensor<2x1x1x1xf32>) -> tensor<2x1x1x1xf32>
  %c = nn.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %v0 = nn.constant dense<3.0> : tensor<2x1x1xf32>
  %v = nn.identity %v0 : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %vp = nn.add %v, %one : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %sd = nn.sqrt %vp : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %g = nn.constant dense<4.0> : tensor<2x1x1xf32>
  %s = nn.div %g, %sd : (tensor<2x1x1xf32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %m = nn.mul %c, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %t = nn.constant dense<0.5> : tensor<2x1x1xf32>
  %y = nn.add %m, %t : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

/// A conv whose filter is fake-quantized per output channel (quantization-aware
/// training): the scale moves into the weights and into the channels' ranges.
// CHECK-LABEL: func.func @per_channel_fake_quantized_filter
// CHECK:         %[[W:.*]] = nn.constant dense<{{\[\[\[\[}}1.000000e+00, -7.500000e-01{{\]\]\]\]}}> : tensor<1x1x1x2xf32>
// CHECK-NEXT:    %[[Q:.*]] = nn.fake_quant %[[W]] {min = array<f32: -2.000000e+00, -1.500000e+00>, max = array<f32: 2.000000e+00, 1.500000e+00>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 3 : i64}
// CHECK-NEXT:    nn.conv %x, %[[Q]], %{{.*}} {data_layout = "NHWC"}
// CHECK-NOT:     nn.batch_norm
func.func @per_channel_fake_quantized_filter(%x: tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32> {
  %w0 = nn.constant dense<[[[[0.5, -0.25]]]]> : tensor<1x1x1x2xf32>
  %w = nn.fake_quant %w0 {min = array<f32: -1.0, -0.5>, max = array<f32: 1.0, 0.5>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 3 : i64} : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x2x2x1xf32>, tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xf32>
  %gamma = nn.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %beta = nn.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %mean = nn.constant dense<0.0> : tensor<2xf32>
  %var = nn.constant dense<1.0> : tensor<2xf32>
  %y = nn.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 0.0 : f32, data_layout = "NHWC"} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

/// Per-tensor fake quantization becomes per channel, each range scaled
/// (the levels stay; the numbers are unchanged).
// CHECK-LABEL: func.func @per_tensor_fake_quantized_filter
// CHECK: nn.fake_quant %{{.*}} {min = array<f32: -1.41421008, -1.41421008>, max = array<f32: 1.41421008, 1.41421008>, num_bits = 8 : i64, axis = 3 : i64}
// CHECK-NOT: nn.batch_norm
func.func @per_tensor_fake_quantized_filter(%x: tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32> {
  %w0 = nn.constant dense<[[[[0.5, -0.25]]]]> : tensor<1x1x1x2xf32>
  %w = nn.fake_quant %w0 {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x2x2x1xf32>, tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xf32>
  %g = nn.constant dense<2.0> : tensor<2xf32>
  %y = nn.batch_norm %c, %g, %g, %g, %g {data_layout = "NHWC"} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

/// A negative scale swaps the channel's range ends (the levels mirror); a
/// weight on a rounding tie would move, which tests/passes checks is declined.
// CHECK-LABEL: func.func @negative_scale_on_fake_quantized_filter
// CHECK: nn.fake_quant %{{.*}} {min = array<f32: -1.999990e+00, -0.499997497>, max = array<f32: 1.999990e+00, 0.499997497>, num_bits = 8 : i64, axis = 3 : i64}
// CHECK-NOT: nn.batch_norm
func.func @negative_scale_on_fake_quantized_filter(%x: tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32> {
  %w0 = nn.constant dense<[[[[0.5, -0.25]]]]> : tensor<1x1x1x2xf32>
  %w = nn.fake_quant %w0 {min = array<f32: -1.0, -0.5>, max = array<f32: 1.0, 0.5>, num_bits = 8 : i64, axis = 3 : i64} : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x2x2x1xf32>, tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xf32>
  %g = nn.constant dense<[-2.0, 1.0]> : tensor<2xf32>
  %one = nn.constant dense<1.0> : tensor<2xf32>
  %y = nn.batch_norm %c, %g, %one, %one, %one {data_layout = "NHWC"} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}
