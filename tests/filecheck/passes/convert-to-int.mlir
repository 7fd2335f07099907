// RUN: graph-opt %s --split-input-file -p convert-to-int | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'convert-to-int{unsigned-io=true}' | filecheck %s --check-prefix=UNSIGNED
// RUN: graph-opt %s --split-input-file -p 'convert-to-int{double-round=true}' | filecheck %s --check-prefix=DOUBLE

/// Graph inputs are quantized, outputs dequantized.
// CHECK-LABEL: func.func @quantize_input_dequantize_output
// CHECK-NEXT:    %[[Q:.*]] = nn.quantize %{{.*}} {{.*}}scale = array<f32: 0.00784313772>, zero_point = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<2x3xi8>
// CHECK-NEXT:    %[[D:.*]] = nn.dequantize %[[Q]] {{.*}}scale = array<f32: 0.00784313772>, zero_point = array<i64: -1>} : (tensor<2x3xi8>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[D]]

/// With unsigned-io, inputs are quantized to uint8 (zero point + 128) and
/// rescaled to int8; outputs go back through uint8.
// UNSIGNED-LABEL: func.func @quantize_input_dequantize_output
// UNSIGNED-NEXT:    %[[U:.*]] = nn.quantize %{{.*}} {{.*}}scale = array<f32: 0.00784313772>, zero_point = array<i64: 127>} : (tensor<2x3xf32>) -> tensor<2x3xui8>
// UNSIGNED-NEXT:    %[[I:.*]] = nn.rescale %[[U]] {{.*}}multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = 127 : i64, output_zp = -1 : i64, {{.*}}input_unsigned = 1 : i64, output_unsigned = 0 : i64} : (tensor<2x3xui8>) -> tensor<2x3xi8>
// UNSIGNED-NEXT:    %[[O:.*]] = nn.rescale %[[I]] {{.*}}input_zp = -1 : i64, output_zp = 127 : i64, {{.*}}output_unsigned = 1 : i64} : (tensor<2x3xi8>) -> tensor<2x3xui8>
// UNSIGNED-NEXT:    %[[D:.*]] = nn.dequantize %[[O]] {{.*}}scale = array<f32: 0.00784313772>, zero_point = array<i64: 127>} : (tensor<2x3xui8>) -> tensor<2x3xf32>
// UNSIGNED-NEXT:    func.return %[[D]]
func.func @quantize_input_dequantize_output(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

/// Conv + bias + relu: int8 weights, i32 bias in input * weight scale, a
/// rescale to the output's scale and the relu as a clamp at the zero point.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK:         %[[X:.*]] = nn.quantize %{{.*}} -> tensor<1x2x4x4xi8>
// CHECK-NEXT:    %[[W:.*]] = nn.constant {{.*}}dense<{{\[\[\[\[}}64]], {{\[\[}}-32]]], {{\[\[\[}}127]], {{\[\[}}95]]]]> : tensor<2x2x1x1xi8>
// CHECK-NEXT:    %[[B:.*]] = nn.constant {{.*}}dense<[1619, -3238]> : tensor<2xi32>
// CHECK-NEXT:    %[[ACC:.*]] = nn.qconv %[[X]], %[[W]], %[[B]] {{.*}}input_zp = -1 : i64, weight_zp = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<2xi32>) -> tensor<1x2x4x4xi32>
// CHECK-NEXT:    %[[R:.*]] = nn.rescale %[[ACC]] {{.*}}multiplier = array<i32: 1731514409>, shift = array<i8: 38>, input_zp = 0 : i64, output_zp = -77 : i64, {{.*}}rounding_mode = "SINGLE_ROUND", per_channel = 0 : i64{{.*}}} : (tensor<1x2x4x4xi32>) -> tensor<1x2x4x4xi8>
// CHECK-NEXT:    %[[C:.*]] = nn.clip %[[R]] {{.*}}min = -7.700000e+01 : f32, max = 1.270000e+02 : f32}
// CHECK-NEXT:    %[[D:.*]] = nn.dequantize %[[C]] {{.*}}scale = array<f32: 0.00980392192>, zero_point = array<i64: -77>}
// CHECK-NEXT:    func.return %[[D]]

/// With double-round, the rescale rounds twice, as TFLite's builtin kernels.
// DOUBLE-LABEL: func.func @conv_bias_relu
// DOUBLE:         nn.rescale %{{.*}} {{.*}}multiplier = array<i32: 1731514409>, shift = array<i8: 38>, {{.*}}rounding_mode = "DOUBLE_ROUND"
func.func @conv_bias_relu(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %w = nn.constant dense<[[[[0.5]], [[-0.25]]], [[[1.0]], [[0.75]]]]> : tensor<2x2x1x1xf32>
  %wq = nn.fake_quant %w {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<2x2x1x1xf32>) -> tensor<2x2x1x1xf32>
  %b = nn.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %1 = nn.conv %0, %wq, %b : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = nn.relu %1 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %3 = nn.fake_quant %2 {min = array<f32: -0.5>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %3 : tensor<1x2x4x4xf32>
}

// -----

/// Per-channel weights of an NCHW conv: the per-channel rescale works on the
/// last dim (as TOSA's), so the accumulator is transposed around it.
// CHECK-LABEL: func.func @conv_per_channel_nchw
// CHECK:         %[[ACC:.*]] = nn.qconv
// CHECK-NEXT:    %[[T:.*]] = nn.transpose %[[ACC]] {{.*}}perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x4x4xi32>) -> tensor<1x4x4x2xi32>
// CHECK-NEXT:    %[[R:.*]] = nn.rescale %[[T]] {{.*}}multiplier = array<i32: [[M0:[0-9]+]], [[M1:[0-9]+]]>, {{.*}}per_channel = 1 : i64{{.*}}} : (tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi8>
// CHECK-NEXT:    nn.transpose %[[R]] {{.*}}perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x2xi8>) -> tensor<1x2x4x4xi8>
// CHECK-NOT:     nn.fake_quant
func.func @conv_per_channel_nchw(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %w = nn.constant dense<[[[[0.5]], [[-0.25]]], [[[1.0]], [[0.75]]]]> : tensor<2x2x1x1xf32>
  %wq = nn.fake_quant %w {min = array<f32: -0.5, -1.0>, max = array<f32: 0.5, 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 0 : i64} : (tensor<2x2x1x1xf32>) -> tensor<2x2x1x1xf32>
  %1 = nn.conv %0, %wq : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %2 = nn.fake_quant %1 {min = array<f32: -2.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %2 : tensor<1x2x4x4xf32>
}

// -----

/// An add of int8 values: both sides to i32 at a common scale, add, rescale.
// CHECK-LABEL: func.func @add
// CHECK:         %[[A:.*]] = nn.quantize %{{.*}} -> tensor<4xi8>
// CHECK-NEXT:    %[[B:.*]] = nn.quantize %{{.*}} -> tensor<4xi8>
// CHECK-NEXT:    %[[WA:.*]] = nn.rescale %[[A]] {{.*}} : (tensor<4xi8>) -> tensor<4xi32>
// CHECK-NEXT:    %[[WB:.*]] = nn.rescale %[[B]] {{.*}} : (tensor<4xi8>) -> tensor<4xi32>
// CHECK-NEXT:    %[[S:.*]] = nn.add %[[WA]], %[[WB]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[R:.*]] = nn.rescale %[[S]] {{.*}} : (tensor<4xi32>) -> tensor<4xi8>
// CHECK-NEXT:    nn.dequantize %[[R]]
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.fake_quant %a {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.fake_quant %b {min = array<f32: -3.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = nn.fake_quant %2 {min = array<f32: -4.0>, max = array<f32: 3.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %3 : tensor<4xf32>
}

// -----

/// max_pool and reshape keep the scale: they run on int8.
// CHECK-LABEL: func.func @max_pool_reshape
// CHECK:         %[[Q:.*]] = nn.quantize
// CHECK-NEXT:    %[[P:.*]] = nn.max_pool %[[Q]] {{.*}}kernel_shape = array<i64: 2, 2>} : (tensor<1x1x3x3xi8>) -> tensor<1x1x2x2xi8>
// CHECK:         %[[R:.*]] = nn.reshape %[[P]], %{{.*}} : (tensor<1x1x2x2xi8>, tensor<2xi64>) -> tensor<2x2xi8>
// CHECK-NEXT:    nn.dequantize %[[R]]
func.func @max_pool_reshape(%x: tensor<1x1x3x3xf32>) -> tensor<2x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  %1 = nn.max_pool %0 {kernel_shape = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  %s = nn.constant dense<[2, 2]> : tensor<2xi64>
  %2 = nn.reshape %1, %s : (tensor<1x1x2x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  func.return %2 : tensor<2x2xf32>
}

// -----

/// A sigmoid has no int8 form: the conv before it runs in int8, its i32
/// accumulator is dequantized, the sigmoid runs in float and its result is quantized.
// CHECK-LABEL: func.func @sigmoid_after_an_int8_conv
// CHECK:         %[[X:.*]] = nn.quantize %x
// CHECK-NEXT:    %[[W:.*]] = nn.constant {{.*}}dense<38> : tensor<1x1x1x1xi8>
// CHECK-NEXT:    %[[C:.*]] = nn.qconv %[[X]], %[[W]] {{.*}}input_zp = -1 : i64, weight_zp = 0 : i64}
// CHECK-NEXT:    %[[D:.*]] = nn.dequantize %[[C]] {{.*}}scale = array<f32: 6.17569895e-05>, zero_point = array<i64: 0>} : (tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xf32>
// CHECK-NEXT:    %[[S:.*]] = nn.sigmoid %[[D]]
// CHECK-NEXT:    nn.quantize %[[S]]
// CHECK-NOT:     nn.fake_quant
func.func @sigmoid_after_an_int8_conv(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %w = nn.constant dense<0.3> : tensor<1x1x1x1xf32>
  %wq = nn.fake_quant %w {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  %1 = nn.conv %0, %wq : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32>
  %2 = nn.sigmoid %1 : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %3 = nn.fake_quant %2 {min = array<f32: 0.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  func.return %3 : tensor<1x1x2x2xf32>
}

// -----

/// A fused silu (EfficientNet): the conv in int8, per output channel
/// dequantized, the silu unfused in float.
// CHECK-LABEL: func.func @fused_silu_after_an_int8_conv
// CHECK:         %[[C:.*]] = nn.qconv
// CHECK-NEXT:    %[[D:.*]] = nn.dequantize %[[C]] {{.*}}scale = array<f32: {{.*}}, {{.*}}>, zero_point = array<i64: 0, 0>, axis = 1 : i64}
// CHECK-NEXT:    %[[S:.*]] = nn.silu %[[D]]
// CHECK-NEXT:    nn.quantize %[[S]]
func.func @fused_silu_after_an_int8_conv(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %w = nn.constant dense<[[[[0.3]]], [[[-0.6]]]]> : tensor<2x1x1x1xf32>
  %wq = nn.fake_quant %w {min = array<f32: -0.5, -1.0>, max = array<f32: 0.5, 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 0 : i64} : (tensor<2x1x1x1xf32>) -> tensor<2x1x1x1xf32>
  %1 = nn.fused_conv %0, %wq {activation = "silu"} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %2 = nn.fake_quant %1 {min = array<f32: -0.5>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %2 : tensor<1x2x2x2xf32>
}

// -----

/// A classifier's logits that only a softmax reads (quantize leaves them
/// unrounded): the matmul in int8, its accumulator dequantized per output
/// channel, the softmax in float on it, and its result returned as float.
// CHECK-LABEL: func.func @softmax_after_an_int8_matmul
// CHECK:         %[[M:.*]] = nn.qmatmul
// CHECK-NEXT:    %[[D:.*]] = nn.dequantize %[[M]] {{.*}} : (tensor<1x2xi32>) -> tensor<1x2xf32>
// CHECK-NEXT:    %[[S:.*]] = nn.softmax %[[D]]
// CHECK-NEXT:    func.return %[[S]]
func.func @softmax_after_an_int8_matmul(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %w = nn.constant dense<[[0.3, -0.6], [0.5, 0.25]]> : tensor<2x2xf32>
  %wq = nn.fake_quant %w {min = array<f32: -0.5, -1.0>, max = array<f32: 0.5, 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = nn.matmul %0, %wq : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %2 = nn.softmax %1 : (tensor<1x2xf32>) -> tensor<1x2xf32>
  func.return %2 : tensor<1x2xf32>
}

// -----

/// A matmul whose result other ops read too stays float before a softmax.
// CHECK-LABEL: func.func @negative_shared_matmul_result_before_softmax
// CHECK:         nn.matmul
// CHECK-NOT:     nn.qmatmul
func.func @negative_shared_matmul_result_before_softmax(%x: tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %w = nn.constant dense<[[0.3, -0.6], [0.5, 0.25]]> : tensor<2x2xf32>
  %wq = nn.fake_quant %w {min = array<f32: -0.5, -1.0>, max = array<f32: 0.5, 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = nn.matmul %0, %wq : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %2 = nn.softmax %1 : (tensor<1x2xf32>) -> tensor<1x2xf32>
  func.return %2, %1 : tensor<1x2xf32>, tensor<1x2xf32>
}

// -----

/// A conv whose result other ops read too stays float before a sigmoid.
// CHECK-LABEL: func.func @negative_shared_conv_result_before_sigmoid
// CHECK:         nn.conv
// CHECK-NOT:     nn.qconv
func.func @negative_shared_conv_result_before_sigmoid(%x: tensor<1x1x2x2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %w = nn.constant dense<0.3> : tensor<1x1x1x1xf32>
  %wq = nn.fake_quant %w {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  %1 = nn.conv %0, %wq : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32>
  %2 = nn.sigmoid %1 : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  func.return %2, %1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// -----

/// Per-channel and 16-bit activation fake quants have no int8 form: kept.
// CHECK-LABEL: func.func @negative_per_channel_and_16_bit_activations
// CHECK-NEXT:    nn.fake_quant
// CHECK-NEXT:    nn.fake_quant
// CHECK-NOT:     nn.quantize
func.func @negative_per_channel_and_16_bit_activations(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0, -2.0, -3.0>, max = array<f32: 1.0, 2.0, 3.0>, num_bits = 8 : i64, axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.fake_quant %0 {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 16 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// -----

/// Without fake quants nothing changes.
// CHECK-LABEL: func.func @negative_float_graph
// CHECK-NEXT:    nn.relu
// CHECK-NEXT:    func.return
func.func @negative_float_graph(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

/// double-round changes only the rescales convert-to-int makes.
// CHECK-LABEL: func.func @negative_double_round_keeps_existing_rescales
// CHECK:         nn.rescale %{{.*}} {{.*}}rounding_mode = "SINGLE_ROUND"
// DOUBLE-LABEL: func.func @negative_double_round_keeps_existing_rescales
// DOUBLE:         nn.rescale %{{.*}} {{.*}}rounding_mode = "SINGLE_ROUND"
// DOUBLE-NOT:     DOUBLE_ROUND
func.func @negative_double_round_keeps_existing_rescales(%acc: tensor<4xi32>, %x: tensor<4xf32>) -> (tensor<4xi8>, tensor<4xf32>) {
  %0 = nn.rescale %acc {multiplier = array<i32: 1073741824>, shift = array<i8: 40>, rounding_mode = "SINGLE_ROUND"} : (tensor<4xi32>) -> tensor<4xi8>
  %1 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1 : tensor<4xi8>, tensor<4xf32>
}
