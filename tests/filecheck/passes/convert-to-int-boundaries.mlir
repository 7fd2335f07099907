// RUN: graph-opt %s --split-input-file -p 'convert-to-int' | filecheck %s --check-prefix=TOSA
// RUN: graph-opt %s --split-input-file -p 'convert-to-int{recipe=xnnpack}' | filecheck %s --check-prefix=XNNPACK
// RUN: graph-opt %s --split-input-file -p 'convert-to-int{recipe=tflite-builtin}' | filecheck %s --check-prefix=BUILTIN
// RUN: graph-opt %s --split-input-file -p 'convert-to-int{recipe=tflite-reference}' | filecheck %s --check-prefix=REFERENCE
// RUN: graph-opt %s --split-input-file -p 'convert-to-int{recipe=tflite-builtin unsigned-io=true}' 2>&1 | filecheck %s --check-prefix=UNSIGNED

/// The float input's QUANTIZE and the output's DEQUANTIZE compute as the
/// recipe's runtime does; the default recipe keeps ONNX's arithmetic.
// TOSA-LABEL: func.func @relu_block
// TOSA:         nn.quantize %x {scale = array<f32: 0.00784313772>, zero_point = array<i64: -1>} :
// TOSA:         nn.dequantize %{{.*}} {scale = array<f32: 0.0156862754>, zero_point = array<i64: -1>} :
// XNNPACK-LABEL: func.func @relu_block
// XNNPACK:         nn.quantize %x {{{.*}}arithmetic = "reciprocal-half-even"}
// XNNPACK:         nn.dequantize %{{.*}} {scale = array<f32: 0.0156862754>, zero_point = array<i64: -1>} :
// BUILTIN-LABEL: func.func @relu_block
// BUILTIN:         nn.quantize %x {{{.*}}arithmetic = "tflite-builtin"}
// BUILTIN:         nn.dequantize %{{.*}} {{{.*}}arithmetic = "tflite-builtin"}
// REFERENCE-LABEL: func.func @relu_block
// REFERENCE:         nn.quantize %x {{{.*}}arithmetic = "divide-half-away"}
// REFERENCE:         nn.dequantize %{{.*}} {scale = array<f32: 0.0156862754>, zero_point = array<i64: -1>} :
func.func @relu_block(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  %w = nn.constant dense<[[0.5, -0.25, 1.0], [1.0, 0.75, 0.0], [0.1, 0.2, 0.3]]> : tensor<3x3xf32>
  %wq = nn.fake_quant %w {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %1 = nn.matmul %0, %wq : (tensor<1x3xf32>, tensor<3x3xf32>) -> tensor<1x3xf32>
  %2 = nn.fake_quant %1 {min = array<f32: -2.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  func.return %2 : tensor<1x3xf32>
}

// -----

/// uint8 boundaries (unsigned-io) have no recipe arithmetic here: they keep
/// ONNX's, and the pass says so.
// UNSIGNED: warning: convert-to-int: 2 quantizes and dequantizes keep ONNX's arithmetic, not recipe=tflite-builtin's (first: nn.quantize: not int8)
// UNSIGNED-LABEL: func.func @negative_unsigned_io
// UNSIGNED:         nn.quantize %x {scale = array<f32: 0.00784313772>, zero_point = array<i64: 127>} :
// UNSIGNED:         nn.dequantize %{{.*}} {scale = array<f32: 0.0156862754>, zero_point = array<i64: 127>} :
func.func @negative_unsigned_io(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  %w = nn.constant dense<[[0.5, -0.25, 1.0], [1.0, 0.75, 0.0], [0.1, 0.2, 0.3]]> : tensor<3x3xf32>
  %wq = nn.fake_quant %w {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %1 = nn.matmul %0, %wq : (tensor<1x3xf32>, tensor<3x3xf32>) -> tensor<1x3xf32>
  %2 = nn.fake_quant %1 {min = array<f32: -2.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  func.return %2 : tensor<1x3xf32>
}
