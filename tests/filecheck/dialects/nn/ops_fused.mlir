// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

// CHECK-LABEL: func.func @fused_conv
func.func @fused_conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x4x4xf32>) {
  // CHECK: nn.fused_conv %{{.*}}, %{{.*}}, %{{.*}} {activation = "relu"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %0 = nn.fused_conv %x, %w, %b {activation = "relu"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  // CHECK: nn.fused_conv %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, activation = "clip", activation_params = array<f32: -1.000000e+00, 2.500000e+00>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  %1 = nn.fused_conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, activation = "clip", activation_params = array<f32: -1.0, 2.5>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  func.return %0, %1 : tensor<1x4x6x6xf32>, tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @fused_conv_nhwc
func.func @fused_conv_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<1x4x4x16xf32> {
  // CHECK: nn.fused_conv {{.*}} {strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC", activation = "leaky_relu", activation_params = array<f32: 1.000000e-01>}
  %0 = nn.fused_conv %x, %w {strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC", activation = "leaky_relu", activation_params = array<f32: 0.1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x4x4x16xf32>
  func.return %0 : tensor<1x4x4x16xf32>
}

// CHECK-LABEL: func.func @fused_matmul
func.func @fused_matmul(%x: tensor<2x7x5xf32>, %w: tensor<5x3xf32>, %b: tensor<3xf32>) -> (tensor<2x7x3xf32>, tensor<2x7x3xf32>) {
  // CHECK: nn.fused_matmul %{{.*}}, %{{.*}}, %{{.*}} {activation = "relu6"} : (tensor<2x7x5xf32>, tensor<5x3xf32>, tensor<3xf32>) -> tensor<2x7x3xf32>
  %0 = nn.fused_matmul %x, %w, %b {activation = "relu6"} : (tensor<2x7x5xf32>, tensor<5x3xf32>, tensor<3xf32>) -> tensor<2x7x3xf32>
  // CHECK: nn.fused_matmul %{{[^,]*}}, %{{[^,]*}} {activation = "sigmoid"} : (tensor<2x7x5xf32>, tensor<5x3xf32>) -> tensor<2x7x3xf32>
  %1 = nn.fused_matmul %x, %w {activation = "sigmoid"} : (tensor<2x7x5xf32>, tensor<5x3xf32>) -> tensor<2x7x3xf32>
  func.return %0, %1 : tensor<2x7x3xf32>, tensor<2x7x3xf32>
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x4x5x8xf32>, %k: tensor<2x4x7x8xf32>, %v: tensor<2x4x7x6xf32>, %m: tensor<2x1x1x7xf32>) -> (tensor<2x4x5x6xf32>, tensor<2x4x5x6xf32>) {
  // CHECK: nn.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f32} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x6xf32>, tensor<2x1x1x7xf32>) -> tensor<2x4x5x6xf32>
  %0 = nn.attention %q, %k, %v, %m {scale = 0.125 : f32} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x6xf32>, tensor<2x1x1x7xf32>) -> tensor<2x4x5x6xf32>
  // CHECK: nn.attention %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} {is_causal = 1 : i64} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x6xf32>) -> tensor<2x4x5x6xf32>
  %1 = nn.attention %q, %k, %v {is_causal = 1 : i64} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x6xf32>) -> tensor<2x4x5x6xf32>
  func.return %0, %1 : tensor<2x4x5x6xf32>, tensor<2x4x5x6xf32>
}
