// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// quantize: x * (1 / scale) gives floor(q) or one more, decided exactly by
/// x - (floor(q) + 0.5) * scale (scale in two halves) against half an ulp of
/// the tie times the scale; the zero point is added to the i32 level.
// CHECK-LABEL: func.func @quantize
func.func @quantize(%x: tensor<2x3xf32>) -> tensor<2x3xi8> {
  // CHECK: %[[INV:.*]] = "tosa.const"() <{values = dense<4.000000e+00> : tensor<1x1xf32>}>
  // CHECK: %[[Q:.*]] = tosa.mul %x, %[[INV]], %{{.*}}
  // CHECK: %[[LEVEL:.*]] = tosa.floor
  // CHECK: %[[TIE:.*]] = tosa.add %[[LEVEL]], %{{.*}}
  // CHECK: %[[HIGH:.*]] = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1xf32>}>
  // CHECK: %[[TS:.*]] = tosa.mul %[[TIE]], %[[HIGH]], %{{.*}}
  // CHECK: tosa.sub %x, %[[TS]]
  // CHECK: tosa.abs %[[TIE]]
  // CHECK-COUNT-9: tosa.greater_equal
  // CHECK: tosa.greater
  // CHECK: tosa.greater
  // CHECK: %[[I:.*]] = tosa.cast %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  // CHECK: %[[ZP:.*]] = "tosa.const"() <{values = dense<3> : tensor<1x1xi32>}>
  // CHECK: %[[S:.*]] = tosa.add %[[I]], %[[ZP]]
  // CHECK: %[[R:.*]] = tosa.cast %[[S]] : (tensor<2x3xi32>) -> tensor<2x3xi8>
  // CHECK: func.return %[[R]]
  %q = nn.quantize %x {scale = array<f32: 0.25>, zero_point = array<i64: 3>} : (tensor<2x3xf32>) -> tensor<2x3xi8>
  func.return %q : tensor<2x3xi8>
}

// -----

/// Per-axis scales and zero points are constants shaped along the axis.
// CHECK-LABEL: func.func @dequantize_per_axis
func.func @dequantize_per_axis(%x: tensor<2x3xi8>) -> tensor<2x3xf32> {
  // CHECK: %[[F:.*]] = tosa.cast %x : (tensor<2x3xi8>) -> tensor<2x3xf32>
  // CHECK: %[[ZP:.*]] = "tosa.const"() <{values = dense<[{{\[}}0.000000e+00, 1.000000e+00, -2.000000e+00]]> : tensor<1x3xf32>}>
  // CHECK: %[[D:.*]] = tosa.sub %[[F]], %[[ZP]]
  // CHECK: %[[S:.*]] = "tosa.const"() <{values = dense<[{{\[}}5.000000e-01, 2.500000e-01, 1.250000e-01]]> : tensor<1x3xf32>}>
  // CHECK: %[[Y:.*]] = tosa.mul %[[D]], %[[S]], %{{.*}}
  // CHECK: func.return %[[Y]]
  %y = nn.dequantize %x {scale = array<f32: 0.5, 0.25, 0.125>, zero_point = array<i64: 0, 1, -2>, axis = 1 : i64} : (tensor<2x3xi8>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

/// nn.rescale maps 1:1: multiplier, shift and zero points become constant operands.
// CHECK-LABEL: func.func @rescale_per_channel
func.func @rescale_per_channel(%x: tensor<2x2xi32>) -> tensor<2x2xi8> {
  // CHECK-DAG: %[[M:.*]] = "tosa.const"() <{values = dense<[1073741824, 1518500250]> : tensor<2xi32>}>
  // CHECK-DAG: %[[SH:.*]] = "tosa.const"() <{values = dense<[30, 31]> : tensor<2xi8>}>
  // CHECK-DAG: %[[IZP:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
  // CHECK-DAG: %[[OZP:.*]] = "tosa.const"() <{values = dense<-7> : tensor<1xi8>}>
  // CHECK: %[[Y:.*]] = tosa.rescale %x, %[[M]], %[[SH]], %[[IZP]], %[[OZP]] {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = true, input_unsigned = false, output_unsigned = false}
  // CHECK: func.return %[[Y]]
  %y = nn.rescale %x {multiplier = array<i32: 1073741824, 1518500250>, shift = array<i8: 30, 31>, output_zp = -7 : i64, rounding_mode = "DOUBLE_ROUND", per_channel = 1 : i64} : (tensor<2x2xi32>) -> tensor<2x2xi8>
  func.return %y : tensor<2x2xi8>
}

// -----

/// An unsigned zero point is stored in the signless type's bits (128 -> -128).
// CHECK-LABEL: func.func @rescale_unsigned_output
func.func @rescale_unsigned_output(%x: tensor<4xi8>) -> tensor<4xi8> {
  // CHECK: %[[OZP:.*]] = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}>
  // CHECK: tosa.rescale %x, %{{.*}}, %{{.*}}, %{{.*}}, %[[OZP]] {scale32 = false, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = true}
  %y = nn.rescale %x {multiplier = array<i16: 16384>, shift = array<i8: 14>, output_zp = 128 : i64, scale32 = 0 : i64, output_unsigned = 1 : i64} : (tensor<4xi8>) -> tensor<4xi8>
  func.return %y : tensor<4xi8>
}

// -----

/// A ui8 the function returns has no signless form (ui8 kept between a quantize
/// and its dequantizes does: @qdq_uint8).
func.func @negative_quantize_unsigned(%x: tensor<4xf32>) -> tensor<4xui8> {
  %q = nn.quantize %x {scale = array<f32: 0.5>, zero_point = array<i64: 128>} : (tensor<4xf32>) -> tensor<4xui8>
  func.return %q : tensor<4xui8>
}
// CHECK: cannot lower nn.quantize at {{.*}}: TOSA tensors are signless: unsigned types do not lower

// -----

/// A ui8 argument that unsigned-input rescales read, and a ui8 rescale result
/// that is only returned (convert-to-int{integer-io=true unsigned-io=true}),
/// become i8 holding the same bits: TOSA's rescale reads and writes them unsigned.
// CHECK-LABEL: func.func @unsigned_boundary
// CHECK-SAME:    (%[[X:.*]]: tensor<4xi8>) -> tensor<4xi8>
// CHECK:         %[[I:.*]] = tosa.rescale %[[X]], {{.*}}input_unsigned = true, output_unsigned = false} : (tensor<4xi8>, {{.*}}) -> tensor<4xi8>
// CHECK:         %[[U:.*]] = tosa.rescale %[[I]], {{.*}}input_unsigned = false, output_unsigned = true} : (tensor<4xi8>, {{.*}}) -> tensor<4xi8>
// CHECK-NEXT:    func.return %[[U]] : tensor<4xi8>
func.func @unsigned_boundary(%x: tensor<4xui8>) -> tensor<4xui8> {
  %i = nn.rescale %x {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = 130 : i64, output_zp = 2 : i64, input_unsigned = 1 : i64} : (tensor<4xui8>) -> tensor<4xi8>
  %y = nn.rescale %i {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = 2 : i64, output_zp = 130 : i64, output_unsigned = 1 : i64} : (tensor<4xi8>) -> tensor<4xui8>
  func.return %y : tensor<4xui8>
}

// -----

/// A ui8 rescale result that an op other than the return reads stays ui8.
func.func @negative_rescale_unsigned_type(%x: tensor<4xi8>) -> tensor<8xui8> {
  %y = nn.rescale %x {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, output_unsigned = 1 : i64} : (tensor<4xi8>) -> tensor<4xui8>
  %r = nn.concat %y, %y {axis = 0 : i64} : (tensor<4xui8>, tensor<4xui8>) -> tensor<8xui8>
  func.return %r : tensor<8xui8>
}
// CHECK: cannot lower nn.rescale at {{.*}}: TOSA tensors are signless: unsigned types do not lower

// -----

/// XNNPACK's float32 rounding (convert-to-int{recipe=xnnpack}) has no TOSA form.
func.func @negative_rescale_fp32(%acc: tensor<4xi32>) -> tensor<4xi8> {
  %0 = nn.rescale %acc {multiplier = array<i32: 13527456>, shift = array<i8: 31>, rounding_mode = "FP32_HALF_EVEN"} : (tensor<4xi32>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}
// CHECK: cannot lower nn.rescale at {{.*}}: rounds in float32 as XNNPACK (convert-to-int{recipe=xnnpack}): TOSA's RESCALE has no such rounding

// -----

/// A ui8 value between a quantize and its dequantize is held as i8 u - 128: both
/// zero points move by -128 (128 -> 0), the same integers in the float math.
// CHECK-LABEL: func.func @qdq_uint8
func.func @qdq_uint8(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[ZP:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
  // CHECK: %[[A:.*]] = tosa.add %{{.*}}, %[[ZP]]
  // CHECK: %[[Q:.*]] = tosa.cast %[[A]] : (tensor<4xi32>) -> tensor<4xi8>
  // CHECK: tosa.cast %[[Q]] : (tensor<4xi8>) -> tensor<4xf32>
  // CHECK-NOT: ui8
  %q = nn.quantize %x {scale = array<f32: 0.5>, zero_point = array<i64: 128>} : (tensor<4xf32>) -> tensor<4xui8>
  %d = nn.dequantize %q {scale = array<f32: 0.5>, zero_point = array<i64: 128>} : (tensor<4xui8>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

/// fake_quant left in a graph: TensorFlow's float arithmetic, its nudged range
/// [-0.996078, 1.003922] (scale 2/255, zero level 127) folded into constants.
// CHECK-LABEL: func.func @fake_quant
func.func @fake_quant(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[HI:.*]] = tosa.minimum %x, %{{.*}}
  // CHECK: %[[C:.*]] = tosa.maximum %[[HI]], %[[LOW:.*]] :
  // CHECK: %[[S:.*]] = tosa.sub %[[C]], %[[LOW]]
  // CHECK: %[[STEPS:.*]] = tosa.mul %[[S]], %{{.*}}
  // CHECK: %[[Z:.*]] = "tosa.const"() <{values = dense<1.270000e+02> : tensor<1xf32>}>
  // CHECK: %[[D:.*]] = tosa.sub %[[STEPS]], %[[Z]]
  // CHECK: %[[H:.*]] = tosa.add %[[D]], %{{.*}}
  // CHECK: %[[L:.*]] = tosa.floor %[[H]]
  // CHECK: %[[Y:.*]] = tosa.mul %[[L]], %{{.*}}
  // CHECK: func.return %[[Y]]
  %y = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

func.func @negative_fake_quant_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<4xf16>) -> tensor<4xf16>
  func.return %y : tensor<4xf16>
}
// CHECK: lower-to-tosa: cannot lower nn.fake_quant at {{.*}}: only f32 fake quantization lowers to TOSA

// -----

/// A TFLite runtime's QUANTIZE arithmetic other than the reference kernels'
/// (convert-to-int{recipe=...}) is refused, not lowered as ONNX's.
func.func @negative_quantize_runtime_arithmetic(%x: tensor<4xf32>) -> tensor<4xi8> {
  %0 = nn.quantize %x {scale = array<f32: 0.5>, zero_point = array<i64: 0>, arithmetic = "tflite-builtin"} : (tensor<4xf32>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}
// CHECK: cannot lower nn.quantize at {{.*}}: arithmetic 'tflite-builtin' (a TFLite runtime's, convert-to-int{recipe=...}) has no TOSA lowering here

// -----

/// The reference kernels' half-away rounding: on the tie, a level >= 0 goes up.
// CHECK-LABEL: func.func @quantize_half_away
func.func @quantize_half_away(%x: tensor<4xf32>) -> tensor<4xi8> {
  // CHECK: %[[LEVEL:.*]] = tosa.floor
  // CHECK: %[[UP:.*]] = tosa.greater_equal %[[LEVEL]], %[[ZERO:[^ ]*]] :
  // CHECK-NEXT: %[[ON_TIE:.*]] = tosa.select %[[UP]], %{{.*}}, %[[ZERO]]
  // CHECK-NOT: tosa.floor
  // CHECK: tosa.select %{{.*}}, %{{.*}}, %[[ON_TIE]]
  %0 = nn.quantize %x {scale = array<f32: 0.5>, zero_point = array<i64: 0>, arithmetic = "divide-half-away"} : (tensor<4xf32>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}
