// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

// CHECK-LABEL: func.func @conv_transpose
func.func @conv_transpose(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x10x10xf32> {
  // CHECK: nn.conv_transpose %{{.*}}, %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64, output_padding = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10x10xf32>
  %0 = nn.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64, output_padding = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10x10xf32>
  func.return %0 : tensor<1x6x10x10xf32>
}

// CHECK-LABEL: func.func @conv_transpose_nhwc_same
func.func @conv_transpose_nhwc_same(%x: tensor<1x5x4x2xf32>, %w: tensor<4x3x8x2xf32>) -> tensor<1x10x8x8xf32> {
  // CHECK: nn.conv_transpose {{.*}} {strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC"} : (tensor<1x5x4x2xf32>, tensor<4x3x8x2xf32>) -> tensor<1x10x8x8xf32>
  %0 = nn.conv_transpose %x, %w {strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC"} : (tensor<1x5x4x2xf32>, tensor<4x3x8x2xf32>) -> tensor<1x10x8x8xf32>
  func.return %0 : tensor<1x10x8x8xf32>
}

// CHECK-LABEL: func.func @conv_transpose_output_shape
func.func @conv_transpose_output_shape(%x: tensor<1x2x5xf32>, %w: tensor<2x3x4xf32>) -> tensor<1x3x9xf32> {
  // CHECK: nn.conv_transpose {{.*}} {strides = array<i64: 2>, output_shape = array<i64: 9>}
  %0 = nn.conv_transpose %x, %w {strides = array<i64: 2>, output_shape = array<i64: 9>} : (tensor<1x2x5xf32>, tensor<2x3x4xf32>) -> tensor<1x3x9xf32>
  func.return %0 : tensor<1x3x9xf32>
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>, %v: tensor<4xf32>) -> (tensor<2x5x3x6xf32>, tensor<2x1x3xf32>) {
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  %0 = nn.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<2x1x3x4xf32>, tensor<4xf32>) -> tensor<2x1x3xf32>
  %1 = nn.matmul %a, %v : (tensor<2x1x3x4xf32>, tensor<4xf32>) -> tensor<2x1x3xf32>
  func.return %0, %1 : tensor<2x5x3x6xf32>, tensor<2x1x3xf32>
}

// CHECK-LABEL: func.func @gemm
func.func @gemm(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  // CHECK: nn.gemm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = 1 : i64, trans_b = 1 : i64}
  %0 = nn.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_a = 1 : i64, trans_b = 1 : i64} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  // CHECK: nn.gemm %{{.*}}, %{{.*}} {trans_a = 1 : i64, trans_b = 1 : i64} : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  %1 = nn.gemm %a, %b {trans_a = 1 : i64, trans_b = 1 : i64} : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  func.return %0, %1 : tensor<3x5xf32>, tensor<3x5xf32>
}

// CHECK-LABEL: func.func @layer_norm_softmax
func.func @layer_norm_softmax(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: nn.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 1.000000e-03 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %0 = nn.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-3 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  // CHECK: nn.softmax %{{.*}} {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = nn.softmax %0 {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %1 : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @pooling
func.func @pooling(%x: tensor<1x3x7x6xf32>, %y: tensor<1x7x6x3xf32>) -> (tensor<1x3x4x3xf32>, tensor<1x4x3x3xf32>, tensor<1x3x1x1xf32>) {
  // CHECK: nn.max_pool %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, ceil_mode = 1 : i64}
  %0 = nn.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, ceil_mode = 1 : i64} : (tensor<1x3x7x6xf32>) -> tensor<1x3x4x3xf32>
  // CHECK: nn.avg_pool %{{.*}} {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", count_include_pad = 1 : i64, data_layout = "NHWC"}
  %1 = nn.avg_pool %y {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", count_include_pad = 1 : i64, data_layout = "NHWC"} : (tensor<1x7x6x3xf32>) -> tensor<1x4x3x3xf32>
  // CHECK: nn.global_avg_pool %{{.*}} : (tensor<1x3x7x6xf32>) -> tensor<1x3x1x1xf32>
  %2 = nn.global_avg_pool %x : (tensor<1x3x7x6xf32>) -> tensor<1x3x1x1xf32>
  func.return %0, %1, %2 : tensor<1x3x4x3xf32>, tensor<1x4x3x3xf32>, tensor<1x3x1x1xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<1x3x1xf32>, tensor<3xf32>, tensor<f32>, tensor<2x3x4xf32>) {
  // CHECK: nn.reduce_mean %{{.*}} {axes = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %0 = nn.reduce_mean %x {axes = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  // CHECK: nn.reduce_sum %{{.*}} {axes = array<i64: 2, 0>, keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %1 = nn.reduce_sum %x {axes = array<i64: 2, 0>, keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // CHECK: nn.reduce_max %{{.*}} {keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<f32>
  %2 = nn.reduce_max %x {keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK: nn.reduce_min %{{.*}} {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %3 = nn.reduce_min %x {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %0, %1, %2, %3 : tensor<1x3x1xf32>, tensor<3xf32>, tensor<f32>, tensor<2x3x4xf32>
}
