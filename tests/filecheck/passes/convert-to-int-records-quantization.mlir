// RUN: graph-opt %s --split-input-file -p convert-to-int | filecheck %s

/// convert-to-int records each int8 value's scale and zero point on the op
/// computing it (here the clamp), and the weights' per-channel scales and axis
/// on their constant, where exporters (TFLite) read them; the i32 bias and
/// accumulator, and the rescale the clamp reads, carry none.
// CHECK-LABEL: func.func @records_quantization
// CHECK:         nn.constant {nn.quantization = {zero_point = 0 : i64, scale = array<f32: 0.00787401572, 0.00393700786>, axis = 3 : i64}} dense<{{.*}}> : tensor<1x1x2x2xi8>
// CHECK-NEXT:    nn.constant dense<[1619, -6477]> : tensor<2xi32>
// CHECK-NEXT:    %[[ACC:.*]] = nn.qconv %{{.*}} {data_layout = "NHWC", input_zp = -1 : i64, weight_zp = 0 : i64}
// CHECK-NEXT:    %[[R:.*]] = nn.rescale %[[ACC]] {multiplier = 
// CHECK-NEXT:    %[[C:.*]] = nn.clip %[[R]] {nn.quantization = {zero_point = -77 : i64, scale = 0.00980392192 : f32}, min
func.func @records_quantization(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %w = nn.constant dense<[[[[0.5, -0.25], [1.0, 0.75]]]]> : tensor<1x1x2x2xf32>
  %wq = nn.fake_quant %w {min = array<f32: -1.0, -0.5>, max = array<f32: 1.0, 0.5>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 3 : i64} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %b = nn.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %1 = nn.conv %0, %wq, %b {data_layout = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  %2 = nn.relu %1 : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %3 = nn.fake_quant %2 {min = array<f32: -0.5>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %3 : tensor<1x4x4x2xf32>
}

// -----

/// nn.quantize carries its own parameters and float values (sigmoid has no
/// int8 form) have none: nothing is recorded.
// CHECK-LABEL: func.func @negative_float_value
// CHECK-NOT:     nn.quantization
// CHECK:         func.return
func.func @negative_float_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.sigmoid %0 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
