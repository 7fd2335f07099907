// RUN: graph-opt %s --split-input-file -p 'convert-to-int{integer-io=true}' | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'convert-to-int{integer-io=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: graph-opt %s --split-input-file -p 'convert-to-int{integer-io=true unsigned-io=true}' | filecheck %s --check-prefix=UNSIGNED
// RUN: graph-opt %s --split-input-file -p 'convert-to-int{integer-io=true}' | %roundtrip | filecheck %s

/// The input's quantization and the output's dequantization leave the graph:
/// the function takes and returns the int8 codes, their scale and zero point
/// recorded as argument and result attributes.
// CHECK-LABEL: func.func @io_only_quantized
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xi8> {nn.quantization = {scale = 0.00784313772 : f32, zero_point = -1 : i64}}) -> (tensor<2x3xi8> {nn.quantization = {scale = 0.00784313772 : f32, zero_point = -1 : i64}})
// CHECK-NEXT:    func.return %[[X]] : tensor<2x3xi8>

/// With unsigned-io the boundary is uint8 (zero point + 128), converted to and
/// from int8 by the unit rescales inside.
// UNSIGNED-LABEL: func.func @io_only_quantized
// UNSIGNED-SAME:    (%[[X:.*]]: tensor<2x3xui8> {nn.quantization = {scale = 0.00784313772 : f32, zero_point = 127 : i64}}) -> (tensor<2x3xui8> {nn.quantization = {scale = 0.00784313772 : f32, zero_point = 127 : i64}})
// UNSIGNED-NEXT:    %[[I:.*]] = nn.rescale %[[X]] {{.*}}input_unsigned = 1 : i64{{.*}} : (tensor<2x3xui8>) -> tensor<2x3xi8>
// UNSIGNED-NEXT:    %[[U:.*]] = nn.rescale %[[I]] {{.*}}output_unsigned = 1 : i64{{.*}} : (tensor<2x3xi8>) -> tensor<2x3xui8>
// UNSIGNED-NEXT:    func.return %[[U]] : tensor<2x3xui8>
func.func @io_only_quantized(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

/// A conv reads the int8 argument directly and its clamped int8 result is
/// returned; other argument attributes (the name) are kept.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x4x4xi8> {nn.name = "image", nn.quantization = {scale = 0.00784313772 : f32, zero_point = -1 : i64}}) -> (tensor<1x2x4x4xi8> {nn.quantization = {scale = 0.00980392192 : f32, zero_point = -77 : i64}})
// CHECK:         %[[ACC:.*]] = nn.qconv %[[X]]
// CHECK-NEXT:    %[[R:.*]] = nn.rescale %[[ACC]]
// CHECK-NEXT:    %[[C:.*]] = nn.clip %[[R]]
// CHECK-NEXT:    func.return %[[C]] : tensor<1x2x4x4xi8>
func.func @conv_bias_relu(%x: tensor<1x2x4x4xf32> {nn.name = "image"}) -> tensor<1x2x4x4xf32> {
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

/// An argument a float op also reads stays float (quantized inside); the
/// output still becomes int8.
// CHECK-LABEL: func.func @negative_input_also_read_by_float
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>) -> (tensor<2x3xi8> {nn.quantization = {{.*}}}, tensor<2x3xf32>)
// CHECK-NEXT:    %[[Q:.*]] = nn.quantize %[[X]]
// CHECK:         nn.sigmoid %[[X]]
// WARN:          warning: convert-to-int: integer-io left 2 inputs and outputs float: input x: float ops read it (nn.sigmoid); output output_1: it is float (computed by nn.sigmoid)
func.func @negative_input_also_read_by_float(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.sigmoid %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

/// A softmax output (float, as convert-to-int runs softmax on the dequantized
/// logits) stays float; the input becomes int8.
// CHECK-LABEL: func.func @negative_float_softmax_output
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4xi8> {nn.quantization = {{.*}}}) -> tensor<1x4xf32>
// CHECK:         %[[S:.*]] = nn.softmax
// CHECK-NEXT:    func.return %[[S]] : tensor<1x4xf32>
// WARN:          warning: convert-to-int: integer-io left 1 inputs and outputs float: output output_0: it is float (computed by nn.softmax)
func.func @negative_float_softmax_output(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -2.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %w = nn.constant dense<[[0.5, -0.25, 1.0, 0.75], [0.25, 0.5, -1.0, 0.125], [1.0, 0.0, 0.5, -0.5], [-0.75, 0.25, 0.25, 1.0]]> : tensor<4x4xf32>
  %wq = nn.fake_quant %w {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = nn.matmul %0, %wq : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
  %2 = nn.softmax %1 {axis = -1 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %2 : tensor<1x4xf32>
}

// -----

/// Boundary quantization per axis has no single (scale, zero point): refused
/// on both sides, and as nothing changed, said so.
// CHECK-LABEL: func.func @negative_per_axis_boundary
// CHECK-SAME:    (%{{.*}}: tensor<1x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>)
// WARN:          warning: convert-to-int: integer-io changed nothing (input x: nn.quantize is per axis (one scale and zero point cannot describe it); output output_0: nn.dequantize is per axis (one scale and zero point cannot describe it); output output_1: it is float (computed by nn.add))
func.func @negative_per_axis_boundary(%x: tensor<1x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %q = nn.quantize %x {scale = array<f32: 1.0, 2.0, 4.0>, zero_point = array<i64: 0, 1, 2>, axis = 1 : i64} : (tensor<1x3xf32>) -> tensor<1x3xi8>
  %d = nn.dequantize %q {scale = array<f32: 1.0, 2.0, 4.0>, zero_point = array<i64: 0, 1, 2>, axis = 1 : i64} : (tensor<1x3xi8>) -> tensor<1x3xf32>
  %c = nn.constant dense<[[0.5, -0.25, 1.0]]> : tensor<1x3xf32>
  %cq = nn.fake_quant %c {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  %s = nn.add %d, %cq : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  func.return %d, %s : tensor<1x3xf32>, tensor<1x3xf32>
}
