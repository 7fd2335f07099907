// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @quantize_float_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.quantize %x {scale = array<f32: 0.5>, zero_point = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: quantize result must be a i8/i16/i32 tensor, got tensor<4xf32>

// -----

func.func @quantize_zero_point_range(%x: tensor<4xf32>) -> tensor<4xi8> {
  %0 = nn.quantize %x {scale = array<f32: 0.5>, zero_point = array<i64: 200>} : (tensor<4xf32>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}
// CHECK: zero points must lie in [-128, 127] for i8

// -----

func.func @quantize_axis_size(%x: tensor<1x3xf32>) -> tensor<1x3xi8> {
  %0 = nn.quantize %x {scale = array<f32: 0.5, 1.0>, zero_point = array<i64: 0, 0>} : (tensor<1x3xf32>) -> tensor<1x3xi8>
  func.return %0 : tensor<1x3xi8>
}
// CHECK: 2 scales do not match axis 1 of size 3

// -----

func.func @dequantize_scale(%x: tensor<4xi8>) -> tensor<4xf32> {
  %0 = nn.dequantize %x {scale = array<f32: 0.0>, zero_point = array<i64: 0>} : (tensor<4xi8>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: scales must be positive and finite

// -----

func.func @qconv_float_input(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xi8>) -> tensor<1x4x6x6xi32> {
  %0 = nn.qconv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xi8>) -> tensor<1x4x6x6xi32>
  func.return %0 : tensor<1x4x6x6xi32>
}
// CHECK: qconv input must be a i8 tensor, got tensor<1x3x8x8xf32>

// -----

func.func @qconv_bias_type(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi8>) -> tensor<1x4x6x6xi32> {
  %0 = nn.qconv %x, %w, %b : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi8>) -> tensor<1x4x6x6xi32>
  func.return %0 : tensor<1x4x6x6xi32>
}
// CHECK: qconv bias must be a i32 tensor, got tensor<4xi8>

// -----

func.func @qconv_result_type(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>) -> tensor<1x4x6x6xi8> {
  %0 = nn.qconv %x, %w : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>) -> tensor<1x4x6x6xi8>
  func.return %0 : tensor<1x4x6x6xi8>
}
// CHECK: result #0 has type tensor<1x4x6x6xi8>, but the operands imply tensor<1x4x6x6xi32>

// -----

func.func @qmatmul_zero_point(%a: tensor<2x5xi8>, %b: tensor<5x3xi8>) -> tensor<2x3xi32> {
  %0 = nn.qmatmul %a, %b {a_zp = 300 : i64} : (tensor<2x5xi8>, tensor<5x3xi8>) -> tensor<2x3xi32>
  func.return %0 : tensor<2x3xi32>
}
// CHECK: a_zp 300 is out of range [-128, 127]

// -----

func.func @rescale_shift_range(%x: tensor<4xi32>) -> tensor<4xi8> {
  %0 = nn.rescale %x {multiplier = array<i32: 1073741824>, shift = array<i8: 1>} : (tensor<4xi32>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}
// CHECK: shifts must lie in [2, 62]

// -----

func.func @rescale_multiplier_type(%x: tensor<4xi32>) -> tensor<4xi8> {
  %0 = nn.rescale %x {multiplier = array<i16: 16384>, shift = array<i8: 14>} : (tensor<4xi32>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}
// CHECK: multiplier must be an array<i32> when scale32 = 1

// -----

func.func @rescale_double_round_scale16(%x: tensor<4xi8>) -> tensor<4xi8> {
  %0 = nn.rescale %x {multiplier = array<i16: 16384>, shift = array<i8: 14>, scale32 = 0 : i64, rounding_mode = "DOUBLE_ROUND"} : (tensor<4xi8>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}
// CHECK: DOUBLE_ROUND needs scale32 = 1

// -----

/// XNNPACK's float32 requantization: the multiplier is a float32 mantissa.
func.func @rescale_fp32_multiplier_too_wide(%x: tensor<4xi32>) -> tensor<4xi8> {
  %0 = nn.rescale %x {multiplier = array<i32: 16777216>, shift = array<i8: 31>, rounding_mode = "FP32_HALF_EVEN"} : (tensor<4xi32>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}
// CHECK: FP32_HALF_EVEN multipliers must be below 2^24

// -----

func.func @rescale_per_channel_count(%x: tensor<2x3xi32>) -> tensor<2x3xi8> {
  %0 = nn.rescale %x {multiplier = array<i32: 1, 2>, shift = array<i8: 30, 30>, per_channel = 1 : i64} : (tensor<2x3xi32>) -> tensor<2x3xi8>
  func.return %0 : tensor<2x3xi8>
}
// CHECK: per_channel needs 3 multipliers (the last dim), got 2

// -----

func.func @rescale_many_without_per_channel(%x: tensor<2x2xi32>) -> tensor<2x2xi8> {
  %0 = nn.rescale %x {multiplier = array<i32: 1, 2>, shift = array<i8: 30, 30>} : (tensor<2x2xi32>) -> tensor<2x2xi8>
  func.return %0 : tensor<2x2xi8>
}
// CHECK: 2 multipliers need per_channel = 1 (one per last-dim index)

// -----

func.func @rescale_i32_zero_point(%x: tensor<4xi32>) -> tensor<4xi8> {
  %0 = nn.rescale %x {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = 3 : i64} : (tensor<4xi32>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}
// CHECK: input_zp must be 0 for i32

// -----

func.func @rescale_unsigned_type_flag(%x: tensor<4xui8>) -> tensor<4xi8> {
  %0 = nn.rescale %x {multiplier = array<i32: 1073741824>, shift = array<i8: 30>} : (tensor<4xui8>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}
// CHECK: input type ui8 needs input_unsigned = 1

// -----

func.func @rescale_both_unsigned(%x: tensor<4xui8>) -> tensor<4xui8> {
  %0 = nn.rescale %x {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_unsigned = 1 : i64, output_unsigned = 1 : i64} : (tensor<4xui8>) -> tensor<4xui8>
  func.return %0 : tensor<4xui8>
}
// CHECK: input_unsigned and output_unsigned exclude each other

// -----

func.func @rescale_unsigned_to_i32(%x: tensor<4xui8>) -> tensor<4xi32> {
  %0 = nn.rescale %x {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_unsigned = 1 : i64} : (tensor<4xui8>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}
// CHECK: an i32 result needs a signed input

// -----

func.func @qconv_transpose_float_filter(%x: tensor<1x3x4x4xi8>, %w: tensor<3x2x2x2xf32>) -> tensor<1x2x8x8xi32> {
  %0 = nn.qconv_transpose %x, %w {strides = array<i64: 2, 2>} : (tensor<1x3x4x4xi8>, tensor<3x2x2x2xf32>) -> tensor<1x2x8x8xi32>
  func.return %0 : tensor<1x2x8x8xi32>
}
// CHECK: qconv_transpose filter must be a i8 tensor, got tensor<3x2x2x2xf32>

// -----

func.func @qconv_transpose_zero_point(%x: tensor<1x3x4x4xi8>, %w: tensor<3x2x2x2xi8>) -> tensor<1x2x8x8xi32> {
  %0 = nn.qconv_transpose %x, %w {strides = array<i64: 2, 2>, weight_zp = 128 : i64} : (tensor<1x3x4x4xi8>, tensor<3x2x2x2xi8>) -> tensor<1x2x8x8xi32>
  func.return %0 : tensor<1x2x8x8xi32>
}
// CHECK: weight_zp 128 is out of range [-128, 127]

// -----

func.func @qconv_transpose_result_type(%x: tensor<1x3x4x4xi8>, %w: tensor<3x2x2x2xi8>) -> tensor<1x2x8x8xf32> {
  %0 = nn.qconv_transpose %x, %w {strides = array<i64: 2, 2>} : (tensor<1x3x4x4xi8>, tensor<3x2x2x2xi8>) -> tensor<1x2x8x8xf32>
  func.return %0 : tensor<1x2x8x8xf32>
}
// CHECK: result #0 has type tensor<1x2x8x8xf32>, but the operands imply tensor<1x2x8x8xi32>

// -----

func.func @quantize_unknown_arithmetic(%x: tensor<4xf32>) -> tensor<4xi8> {
  %0 = nn.quantize %x {scale = array<f32: 0.5>, zero_point = array<i64: 0>, arithmetic = "exact"} : (tensor<4xf32>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}
// CHECK: arithmetic 'exact' is not one of divide-half-even, reciprocal-half-even, divide-half-away, tflite-builtin

// -----

func.func @dequantize_arithmetic_per_axis(%x: tensor<2x3xi8>) -> tensor<2x3xf32> {
  %0 = nn.dequantize %x {scale = array<f32: 0.5, 0.25, 1.0>, zero_point = array<i64: 0, 0, 0>, axis = 1 : i64, arithmetic = "tflite-builtin"} : (tensor<2x3xi8>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
// CHECK: arithmetic 'tflite-builtin' is per tensor only

// -----

func.func @quantize_arithmetic_i16(%x: tensor<4xf32>) -> tensor<4xi16> {
  %0 = nn.quantize %x {scale = array<f32: 0.5>, zero_point = array<i64: 0>, arithmetic = "reciprocal-half-even"} : (tensor<4xf32>) -> tensor<4xi16>
  func.return %0 : tensor<4xi16>
}
// CHECK: arithmetic 'reciprocal-half-even' is for i8 values only
