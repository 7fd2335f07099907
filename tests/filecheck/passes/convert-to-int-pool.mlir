// RUN: graph-opt %s --split-input-file -p convert-to-int | filecheck %s
// RUN: graph-opt %s --split-input-file -p convert-to-int 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

/// A mean over the spatial axes of an int8 value: the values less their zero
/// point widened to i32, summed, and rescaled once by input scale /
/// (16 x output scale) = 2 / 16 = 2^30 >> 33, as TFLite's int8 MEAN.
// CHECK-LABEL: func.func @reduce_mean_nhwc
// CHECK:         %[[X:.*]] = nn.quantize %{{.*}} -> tensor<1x4x4x2xi8>
// CHECK-NEXT:    %[[W:.*]] = nn.rescale %[[X]] {{.*}}multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = -1 : i64, output_zp = 0 : i64{{.*}}} : (tensor<1x4x4x2xi8>) -> tensor<1x4x4x2xi32>
// CHECK-NEXT:    %[[S:.*]] = nn.reduce_sum %[[W]] {{.*}}axes = array<i64: 1, 2>, keepdims = 0 : i64} : (tensor<1x4x4x2xi32>) -> tensor<1x2xi32>
// CHECK-NEXT:    %[[M:.*]] = nn.rescale %[[S]] {{.*}}multiplier = array<i32: 1073741824>, shift = array<i8: 33>, input_zp = 0 : i64, output_zp = -1 : i64{{.*}}} : (tensor<1x2xi32>) -> tensor<1x2xi8>
// CHECK-NEXT:    %[[D:.*]] = nn.dequantize %[[M]] {{.*}}scale = array<f32: 0.00392156886>, zero_point = array<i64: -1>}
// CHECK-NEXT:    func.return %[[D]]
func.func @reduce_mean_nhwc(%x: tensor<1x4x4x2xf32>) -> tensor<1x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = nn.reduce_mean %0 {axes = array<i64: 1, 2>, keepdims = 0 : i64} : (tensor<1x4x4x2xf32>) -> tensor<1x2xf32>
  %2 = nn.fake_quant %1 {min = array<f32: -0.5>, max = array<f32: 0.5>, num_bits = 8 : i64} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  func.return %2 : tensor<1x2xf32>
}


// -----

/// nn.global_avg_pool (NCHW) sums the spatial axes, keeping them as size 1.
// CHECK-LABEL: func.func @global_avg_pool_nchw
// CHECK:         %[[W:.*]] = nn.rescale %{{.*}} {{.*}}input_zp = -128 : i64, output_zp = 0 : i64{{.*}} -> tensor<1x2x3x3xi32>
// CHECK-NEXT:    %[[S:.*]] = nn.reduce_sum %[[W]] {{.*}}axes = array<i64: 2, 3>, keepdims = 1 : i64} : (tensor<1x2x3x3xi32>) -> tensor<1x2x1x1xi32>
// CHECK-NEXT:    %[[M:.*]] = nn.rescale %[[S]] {{.*}}multiplier = array<i32: 1908874354>, shift = array<i8: 34>, {{.*}}output_zp = -128 : i64{{.*}} -> tensor<1x2x1x1xi8>
// CHECK-NOT:     nn.global_avg_pool
func.func @global_avg_pool_nchw(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32> {
  %0 = nn.fake_quant %x {min = array<f32: 0.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %1 = nn.global_avg_pool %0 : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  %2 = nn.fake_quant %1 {min = array<f32: 0.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  func.return %2 : tensor<1x2x1x1xf32>
}


// -----

/// A mean whose result has no fake quantization has no output scale: it stays
/// float on the dequantized int8 input, and convert-to-int says so.
// CHECK-LABEL: func.func @negative_mean_without_output_range
// CHECK:         %[[D:.*]] = nn.dequantize
// CHECK-NEXT:    nn.reduce_mean %[[D]]
// WARN: warning: convert-to-int: left float on dequantized int8 values (no int8 form here): 1 nn.reduce_mean
func.func @negative_mean_without_output_range(%x: tensor<1x4x4x2xf32>) -> tensor<1x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = nn.reduce_mean %0 {axes = array<i64: 1, 2>, keepdims = 0 : i64} : (tensor<1x4x4x2xf32>) -> tensor<1x2xf32>
  func.return %1 : tensor<1x2xf32>
}


// -----

/// Unknown spatial dims give no count to divide by: the mean stays float.
// CHECK-LABEL: func.func @negative_mean_over_unknown_dims
// CHECK:         %[[D:.*]] = nn.dequantize
// CHECK-NEXT:    %[[M:.*]] = nn.reduce_mean %[[D]]
// CHECK-NEXT:    nn.quantize %[[M]]
// WARN: warning: convert-to-int: left float on dequantized int8 values (no int8 form here): 1 nn.reduce_mean
func.func @negative_mean_over_unknown_dims(%x: tensor<1x?x?x2xf32>) -> tensor<1x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x?x?x2xf32>) -> tensor<1x?x?x2xf32>
  %1 = nn.reduce_mean %0 {axes = array<i64: 1, 2>, keepdims = 0 : i64} : (tensor<1x?x?x2xf32>) -> tensor<1x2xf32>
  %2 = nn.fake_quant %1 {min = array<f32: -0.5>, max = array<f32: 0.5>, num_bits = 8 : i64} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  func.return %2 : tensor<1x2xf32>
}

// -----

/// A windowed average pool at its input's scale is nn.qavg_pool (TOSA
/// AVG_POOL2D: padding not counted) with the output's zero point.
// CHECK-LABEL: func.func @avg_pool_same_scale
// CHECK:         %[[X:.*]] = nn.quantize %{{.*}} -> tensor<1x6x6x2xi8>
// CHECK-NEXT:    %[[P:.*]] = nn.qavg_pool %[[X]] {{.*}}kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC", input_zp = -128 : i64, output_zp = -128 : i64} : (tensor<1x6x6x2xi8>) -> tensor<1x3x3x2xi8>
// CHECK-NEXT:    %[[D:.*]] = nn.dequantize %[[P]] {{.*}}scale = array<f32: 0.0117647061>, zero_point = array<i64: -128>}
// CHECK-NEXT:    func.return %[[D]]
func.func @avg_pool_same_scale(%x: tensor<1x6x6x2xf32>) -> tensor<1x3x3x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: 0.0>, max = array<f32: 3.0>, num_bits = 8 : i64} : (tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32>
  %1 = nn.avg_pool %0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC"} : (tensor<1x6x6x2xf32>) -> tensor<1x3x3x2xf32>
  %2 = nn.fake_quant %1 {min = array<f32: 0.0>, max = array<f32: 3.0>, num_bits = 8 : i64} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  func.return %2 : tensor<1x3x3x2xf32>
}

// -----

/// At another output scale, the pool (at the input's scale) is rescaled:
/// 3 / 2 = 1610612736 >> 30.
// CHECK-LABEL: func.func @avg_pool_other_scale
// CHECK:         %[[P:.*]] = nn.qavg_pool %{{.*}} {{.*}}kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, input_zp = -128 : i64, output_zp = -128 : i64}
// CHECK-NEXT:    %[[R:.*]] = nn.rescale %[[P]] {{.*}}multiplier = array<i32: 1610612{{[0-9]+}}>, shift = array<i8: 30>, input_zp = -128 : i64, output_zp = -128 : i64{{.*}}} : (tensor<1x2x2x2xi8>) -> tensor<1x2x2x2xi8>
// CHECK-NEXT:    nn.dequantize %[[R]] {{.*}}scale = array<f32: 0.00784313772>, zero_point = array<i64: -128>}
func.func @avg_pool_other_scale(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: 0.0>, max = array<f32: 3.0>, num_bits = 8 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %1 = nn.avg_pool %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %2 = nn.fake_quant %1 {min = array<f32: 0.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %2 : tensor<1x2x2x2xf32>
}

// -----

/// Counting the padding (count_include_pad with pads) is not TOSA's average:
/// the pool stays float, and convert-to-int says so.
// CHECK-LABEL: func.func @negative_avg_pool_counting_padding
// CHECK:         %[[D:.*]] = nn.dequantize
// CHECK-NEXT:    nn.avg_pool %[[D]]
// WARN: warning: convert-to-int: left float on dequantized int8 values (no int8 form here): 1 nn.avg_pool
func.func @negative_avg_pool_counting_padding(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = nn.fake_quant %x {min = array<f32: 0.0>, max = array<f32: 3.0>, num_bits = 8 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %1 = nn.avg_pool %0 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = nn.fake_quant %1 {min = array<f32: 0.0>, max = array<f32: 3.0>, num_bits = 8 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %2 : tensor<1x2x4x4xf32>
}
