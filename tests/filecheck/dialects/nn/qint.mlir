// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

// CHECK-LABEL: func.func @quantize_dequantize
func.func @quantize_dequantize(%x: tensor<1x3x4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xui8>) {
  // CHECK: %[[Q:.*]] = nn.quantize %{{.*}} {scale = array<f32: 5.000000e-01>, zero_point = array<i64: -3>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xi8>
  %q = nn.quantize %x {scale = array<f32: 0.5>, zero_point = array<i64: -3>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xi8>
  // CHECK: nn.dequantize %[[Q]] {scale = array<f32: 5.000000e-01>, zero_point = array<i64: -3>} : (tensor<1x3x4x4xi8>) -> tensor<1x3x4x4xf32>
  %d = nn.dequantize %q {scale = array<f32: 0.5>, zero_point = array<i64: -3>} : (tensor<1x3x4x4xi8>) -> tensor<1x3x4x4xf32>
  // CHECK: nn.quantize %{{.*}} {scale = array<f32: 1.000000e+00, 2.000000e+00, 4.000000e+00>, zero_point = array<i64: 0, 10, 128>, axis = 1 : i64} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xui8>
  %u = nn.quantize %x {scale = array<f32: 1.0, 2.0, 4.0>, zero_point = array<i64: 0, 10, 128>, axis = 1 : i64} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xui8>
  func.return %d, %u : tensor<1x3x4x4xf32>, tensor<1x3x4x4xui8>
}

// CHECK-LABEL: func.func @qconv
func.func @qconv(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>, %dw: tensor<3x1x3x3xi8>) -> (tensor<1x4x4x4xi32>, tensor<1x3x8x8xi32>) {
  // CHECK: nn.qconv %{{.*}}, %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, input_zp = -5 : i64, weight_zp = 0 : i64} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<1x4x4x4xi32>
  %0 = nn.qconv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, input_zp = -5 : i64, weight_zp = 0 : i64} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<1x4x4x4xi32>
  // CHECK: nn.qconv %{{[^,]*}}, %{{[^,]*}} {auto_pad = "SAME_UPPER", group = 3 : i64} : (tensor<1x3x8x8xi8>, tensor<3x1x3x3xi8>) -> tensor<1x3x8x8xi32>
  %1 = nn.qconv %x, %dw {auto_pad = "SAME_UPPER", group = 3 : i64} : (tensor<1x3x8x8xi8>, tensor<3x1x3x3xi8>) -> tensor<1x3x8x8xi32>
  func.return %0, %1 : tensor<1x4x4x4xi32>, tensor<1x3x8x8xi32>
}

// CHECK-LABEL: func.func @qmatmul
func.func @qmatmul(%a: tensor<2x7x5xi8>, %b: tensor<5x3xi8>) -> tensor<2x7x3xi32> {
  // CHECK: nn.qmatmul %{{.*}}, %{{.*}} {a_zp = 3 : i64, b_zp = -1 : i64} : (tensor<2x7x5xi8>, tensor<5x3xi8>) -> tensor<2x7x3xi32>
  %0 = nn.qmatmul %a, %b {a_zp = 3 : i64, b_zp = -1 : i64} : (tensor<2x7x5xi8>, tensor<5x3xi8>) -> tensor<2x7x3xi32>
  func.return %0 : tensor<2x7x3xi32>
}

// CHECK-LABEL: func.func @rescale
func.func @rescale(%acc: tensor<1x4x4x3xi32>, %u: tensor<8xui8>, %s: tensor<8xi16>) -> (tensor<1x4x4x3xi8>, tensor<8xi8>, tensor<8xi8>) {
  // CHECK: nn.rescale %{{.*}} {multiplier = array<i32: 1073741824, 1518500250, 2147483647>, shift = array<i8: 38, 39, 40>, output_zp = -128 : i64, per_channel = 1 : i64, rounding_mode = "DOUBLE_ROUND"} : (tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi8>
  %0 = nn.rescale %acc {multiplier = array<i32: 1073741824, 1518500250, 2147483647>, shift = array<i8: 38, 39, 40>, output_zp = -128 : i64, per_channel = 1 : i64, rounding_mode = "DOUBLE_ROUND"} : (tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi8>
  // CHECK: nn.rescale %{{.*}} {multiplier = array<i32: 13527456>, shift = array<i8: 31>, rounding_mode = "FP32_HALF_EVEN"} : (tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi8>
  %fp32 = nn.rescale %acc {multiplier = array<i32: 13527456>, shift = array<i8: 31>, rounding_mode = "FP32_HALF_EVEN"} : (tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi8>
  // CHECK: nn.rescale %{{.*}} {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = 128 : i64, input_unsigned = 1 : i64} : (tensor<8xui8>) -> tensor<8xi8>
  %1 = nn.rescale %u {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = 128 : i64, input_unsigned = 1 : i64} : (tensor<8xui8>) -> tensor<8xi8>
  // CHECK: nn.rescale %{{.*}} {multiplier = array<i16: 16384>, shift = array<i8: 14>, scale32 = 0 : i64} : (tensor<8xi16>) -> tensor<8xi8>
  %2 = nn.rescale %s {multiplier = array<i16: 16384>, shift = array<i8: 14>, scale32 = 0 : i64} : (tensor<8xi16>) -> tensor<8xi8>
  func.return %0, %1, %2 : tensor<1x4x4x3xi8>, tensor<8xi8>, tensor<8xi8>
}

// CHECK-LABEL: func.func @qconv_transpose
func.func @qconv_transpose(%x: tensor<1x3x4x4xi8>, %w: tensor<3x2x3x3xi8>, %b: tensor<2xi32>) -> tensor<1x2x8x8xi32> {
  // CHECK: nn.qconv_transpose %{{.*}}, %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>, input_zp = -5 : i64, weight_zp = 1 : i64} : (tensor<1x3x4x4xi8>, tensor<3x2x3x3xi8>, tensor<2xi32>) -> tensor<1x2x8x8xi32>
  %0 = nn.qconv_transpose %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>, input_zp = -5 : i64, weight_zp = 1 : i64} : (tensor<1x3x4x4xi8>, tensor<3x2x3x3xi8>, tensor<2xi32>) -> tensor<1x2x8x8xi32>
  func.return %0 : tensor<1x2x8x8xi32>
}

/// A runtime's QUANTIZE / DEQUANTIZE arithmetic is kept through a round trip.
// CHECK-LABEL: func.func @boundary_arithmetic
func.func @boundary_arithmetic(%x: tensor<9xf32>) -> tensor<9xf32> {
  // CHECK: nn.quantize %{{.*}} {scale = array<f32: 5.000000e-01>, zero_point = array<i64: -3>, arithmetic = "divide-half-away"}
  %q = nn.quantize %x {scale = array<f32: 0.5>, zero_point = array<i64: -3>, arithmetic = "divide-half-away"} : (tensor<9xf32>) -> tensor<9xi8>
  // CHECK: nn.dequantize %{{.*}} {scale = array<f32: 5.000000e-01>, zero_point = array<i64: -3>, arithmetic = "tflite-builtin"}
  %d = nn.dequantize %q {scale = array<f32: 0.5>, zero_point = array<i64: -3>, arithmetic = "tflite-builtin"} : (tensor<9xi8>) -> tensor<9xf32>
  func.return %d : tensor<9xf32>
}
