// RUN: graph-opt %s --split-input-file -p 'convert-to-int{recipe=xnnpack}' | filecheck %s --check-prefix=XNNPACK
// RUN: graph-opt %s --split-input-file -p 'convert-to-int{recipe=tflite-builtin}' | filecheck %s --check-prefix=BUILTIN
// RUN: graph-opt %s --split-input-file -p 'convert-to-int{recipe=tflite-reference}' | filecheck %s --check-prefix=REFERENCE
// RUN: not graph-opt %s -p 'convert-to-int{recipe=gemmlowp}' 2>&1 | filecheck %s --check-prefix=BAD

// BAD: error: convert-to-int: recipe=gemmlowp is not one of tosa, xnnpack, tflite-builtin, tflite-reference

/// XNNPACK's ADD: each side times an integer multiplier of its float32 scale
/// ratio (exactly: multiplier x 2^10, shift 10), one rounding shift of the sum.
// XNNPACK: builtin.module attributes {nn.int8_recipe = "xnnpack"}
// XNNPACK-LABEL: func.func @add
// XNNPACK:         %[[WA:.*]] = nn.rescale %{{.*}} {multiplier = array<i32: 613566464>, shift = array<i8: 10>, input_zp = -1 : i64, output_zp = 0 : i64, {{.*}}rounding_mode = "SINGLE_ROUND"{{.*}} -> tensor<4xi32>
// XNNPACK-NEXT:    %[[WB:.*]] = nn.rescale %{{.*}} {multiplier = array<i32: 1533917184>, shift = array<i8: 10>, input_zp = 25 : i64, {{.*}} -> tensor<4xi32>
// XNNPACK-NEXT:    %[[S:.*]] = nn.add %[[WA]], %[[WB]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// XNNPACK-NEXT:    nn.rescale %[[S]] {{.*}}multiplier = array<i32: 1073741824>, shift = array<i8: 51>, input_zp = 0 : i64, output_zp = 18 : i64, {{.*}}rounding_mode = "SINGLE_ROUND"{{.*}} -> tensor<4xi8>

/// TFLite's AddFunc: each side shifted left 20 bits, requantized (rounding
/// twice), the sum requantized (rounding twice).
// BUILTIN: builtin.module attributes {nn.int8_recipe = "tflite-builtin"}
// BUILTIN-LABEL: func.func @add
// BUILTIN:         %[[LA:.*]] = nn.rescale %{{.*}} {multiplier = array<i32: 1073741824>, shift = array<i8: 10>, input_zp = -1 : i64, {{.*}} -> tensor<4xi32>
// BUILTIN-NEXT:    %[[RA:.*]] = nn.rescale %[[LA]] {multiplier = array<i32: 1717986959>, shift = array<i8: 33>, {{.*}}rounding_mode = "DOUBLE_ROUND"{{.*}} -> tensor<4xi32>
// BUILTIN-NEXT:    %[[LB:.*]] = nn.rescale %{{.*}} {multiplier = array<i32: 1073741824>, shift = array<i8: 10>, input_zp = 25 : i64, {{.*}} -> tensor<4xi32>
// BUILTIN-NEXT:    %[[RB:.*]] = nn.rescale %[[LB]] {multiplier = array<i32: 1073741824>, shift = array<i8: 31>, {{.*}}rounding_mode = "DOUBLE_ROUND"{{.*}} -> tensor<4xi32>
// BUILTIN-NEXT:    %[[S:.*]] = nn.add %[[RA]], %[[RB]]
// BUILTIN-NEXT:    nn.rescale %[[S]] {{.*}}multiplier = array<i32: 1533916933>, shift = array<i8: 50>, input_zp = 0 : i64, output_zp = 18 : i64, {{.*}}rounding_mode = "DOUBLE_ROUND"{{.*}} -> tensor<4xi8>

/// The reference kernels add as the builtin ones.
// REFERENCE-LABEL: func.func @add
// REFERENCE:       nn.rescale {{.*}}multiplier = array<i32: 1717986959>, shift = array<i8: 33>, {{.*}}"DOUBLE_ROUND"
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.fake_quant %a {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.fake_quant %b {min = array<f32: -3.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = nn.fake_quant %2 {min = array<f32: -4.0>, max = array<f32: 3.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %3 : tensor<4xf32>
}

// -----

/// A conv's accumulator: in float32 as XNNPACK (the multiplier is the
/// float32 scale's mantissa); as ruy in the builtin kernels (a rounding
/// high multiply to i32, then a shift rounding half up); rounding twice
/// (gemmlowp) in the reference kernels.
// XNNPACK-LABEL: func.func @conv_bias_relu
// XNNPACK:         %[[ACC:.*]] = nn.qconv
// XNNPACK-NEXT:    nn.rescale %[[ACC]] {multiplier = array<i32: 13527456>, shift = array<i8: 31>, input_zp = 0 : i64, output_zp = -77 : i64, {{.*}}rounding_mode = "FP32_HALF_EVEN"{{.*}} -> tensor<1x4x4x2xi8>
// BUILTIN-LABEL: func.func @conv_bias_relu
// BUILTIN:         %[[ACC:.*]] = nn.qconv
// BUILTIN-NEXT:    %[[HIGH:.*]] = nn.rescale %[[ACC]] {multiplier = array<i32: 1731514409>, shift = array<i8: 31>, input_zp = 0 : i64, output_zp = 0 : i64, {{.*}}rounding_mode = "SINGLE_ROUND"{{.*}} -> tensor<1x4x4x2xi32>
// BUILTIN-NEXT:    nn.rescale %[[HIGH]] {multiplier = array<i32: 1073741824>, shift = array<i8: 37>, input_zp = 0 : i64, output_zp = -77 : i64, {{.*}}rounding_mode = "SINGLE_ROUND"{{.*}} -> tensor<1x4x4x2xi8>
// REFERENCE-LABEL: func.func @conv_bias_relu
// REFERENCE:       %[[ACC:.*]] = nn.qconv
// REFERENCE-NEXT:  nn.rescale %[[ACC]] {multiplier = array<i32: 1731514409>, shift = array<i8: 38>, {{.*}}rounding_mode = "DOUBLE_ROUND"{{.*}} -> tensor<1x4x4x2xi8>
func.func @conv_bias_relu(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %w = nn.constant dense<[[[[0.5, -0.25], [1.0, 0.75]]]]> : tensor<1x1x2x2xf32>
  %wq = nn.fake_quant %w {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %b = nn.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %1 = nn.conv %0, %wq, %b {data_layout = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  %2 = nn.relu %1 : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %3 = nn.fake_quant %2 {min = array<f32: -0.5>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %3 : tensor<1x4x4x2xf32>
}

// -----

/// A 4-D spatial mean: the builtin kernels sum the raw values and add an
/// offset (out zero point - in zero point x in / out scale) in i32; the
/// reference kernels subtract the input zero point first.
// BUILTIN-LABEL: func.func @mean
// BUILTIN:         %[[W:.*]] = nn.rescale %{{.*}} {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = 0 : i64, {{.*}} -> tensor<1x4x4x2xi32>
// BUILTIN-NEXT:    %[[SUM:.*]] = nn.reduce_sum %[[W]]
// BUILTIN-NEXT:    %[[SCALED:.*]] = nn.rescale %[[SUM]] {multiplier = array<i32: 1073741824>, shift = array<i8: 33>, {{.*}}"DOUBLE_ROUND"{{.*}} -> tensor<1x1x1x2xi32>
// BUILTIN-NEXT:    %[[OFFSET:.*]] = nn.constant dense<{{.*}}> : tensor<i32>
// BUILTIN-NEXT:    %[[BIASED:.*]] = nn.add %[[SCALED]], %[[OFFSET]]
// BUILTIN-NEXT:    nn.rescale %[[BIASED]] {{.*}}multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = 0 : i64, output_zp = -51 : i64{{.*}} -> tensor<1x1x1x2xi8>
// REFERENCE-LABEL: func.func @mean
// REFERENCE:       %[[W:.*]] = nn.rescale %{{.*}} {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = -1 : i64, {{.*}} -> tensor<1x4x4x2xi32>
// REFERENCE-NEXT:  %[[SUM:.*]] = nn.reduce_sum %[[W]]
// REFERENCE-NEXT:  nn.rescale %[[SUM]] {{.*}}multiplier = array<i32: 1073741824>, shift = array<i8: 33>, input_zp = 0 : i64, output_zp = -51 : i64, {{.*}}"DOUBLE_ROUND"{{.*}} -> tensor<1x1x1x2xi8>
func.func @mean(%x: tensor<1x4x4x2xf32>) -> tensor<1x1x1x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = nn.global_avg_pool %0 {data_layout = "NHWC"} : (tensor<1x4x4x2xf32>) -> tensor<1x1x1x2xf32>
  %2 = nn.fake_quant %1 {min = array<f32: -0.3>, max = array<f32: 0.7>, num_bits = 8 : i64} : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  func.return %2 : tensor<1x1x1x2xf32>
}

// -----

/// XNNPACK takes no add whose input / output scale ratio is below 2^-10:
/// that add stays float (the builtin recipes convert it).
// XNNPACK-LABEL: func.func @negative_xnnpack_add_ratio_out_of_range
// XNNPACK-NOT:     -> tensor<4xi32>
// XNNPACK:         nn.add %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// BUILTIN-LABEL: func.func @negative_xnnpack_add_ratio_out_of_range
// BUILTIN:         nn.add %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
func.func @negative_xnnpack_add_ratio_out_of_range(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.fake_quant %a {min = array<f32: -0.001>, max = array<f32: 0.001>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.fake_quant %b {min = array<f32: -3.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = nn.fake_quant %2 {min = array<f32: -10.0>, max = array<f32: 10.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %3 : tensor<4xf32>
}

// -----

/// A recipe changes only the rescales convert-to-int makes.
// BUILTIN-LABEL: func.func @negative_recipe_keeps_existing_rescales
// BUILTIN:         nn.rescale %{{.*}} {multiplier = array<i32: 1073741824>, shift = array<i8: 40>, input_zp = 0 : i64, output_zp = 0 : i64} : (tensor<4xi32>) -> tensor<4xi8>
func.func @negative_recipe_keeps_existing_rescales(%acc: tensor<4xi32>, %x: tensor<4xf32>) -> (tensor<4xi8>, tensor<4xf32>) {
  %0 = nn.rescale %acc {multiplier = array<i32: 1073741824>, shift = array<i8: 40>, input_zp = 0 : i64, output_zp = 0 : i64} : (tensor<4xi32>) -> tensor<4xi8>
  %1 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1 : tensor<4xi8>, tensor<4xf32>
}
