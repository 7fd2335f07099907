// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

// CHECK-LABEL: func.func @batch_norm_training
func.func @batch_norm_training(%x: tensor<2x4x4x3xf32>, %p: tensor<3xf32>) -> tensor<2x4x4x3xf32> {
  // CHECK: nn.batch_norm_training {{.*}} {epsilon = 1.000000e-03 : f32, data_layout = "NHWC"} : {{.*}} -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %y, %m, %v, %sm, %sv = nn.batch_norm_training %x, %p, %p, %p, %p {epsilon = 1.0e-03 : f32, data_layout = "NHWC"} : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK: nn.batch_norm_grad
  %dx, %ds, %db = nn.batch_norm_grad %y, %x, %p, %sm, %sv {data_layout = "NHWC"} : (tensor<2x4x4x3xf32>, tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK: nn.relu_grad
  %r = nn.relu_grad %dx, %x : (tensor<2x4x4x3xf32>, tensor<2x4x4x3xf32>) -> tensor<2x4x4x3xf32>
  func.return %r : tensor<2x4x4x3xf32>
}

// CHECK-LABEL: func.func @conv_filter_grad
func.func @conv_filter_grad(%x: tensor<1x6x6x3xf32>, %dy: tensor<1x3x3x5xf32>) -> tensor<3x3x3x5xf32> {
  // CHECK: nn.conv_filter_grad {{.*}} {filter_shape = array<i64: 3, 3, 3, 5>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC"}
  %0 = nn.conv_filter_grad %x, %dy {filter_shape = array<i64: 3, 3, 3, 5>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC"} : (tensor<1x6x6x3xf32>, tensor<1x3x3x5xf32>) -> tensor<3x3x3x5xf32>
  func.return %0 : tensor<3x3x3x5xf32>
}

// CHECK-LABEL: func.func @pool_grads
func.func @pool_grads(%x: tensor<1x7x6x3xf32>, %dy: tensor<1x4x3x3xf32>) -> (tensor<1x7x6x3xf32>, tensor<1x7x6x3xf32>) {
  // CHECK: nn.max_pool_grad %x, %dy {kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC"} : (tensor<1x7x6x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x7x6x3xf32>
  %m = nn.max_pool_grad %x, %dy {kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC"} : (tensor<1x7x6x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x7x6x3xf32>
  // CHECK: nn.avg_pool_grad %dy {kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", input_shape = array<i64: 1, 7, 6, 3>, data_layout = "NHWC"} : (tensor<1x4x3x3xf32>) -> tensor<1x7x6x3xf32>
  %a = nn.avg_pool_grad %dy {kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", input_shape = array<i64: 1, 7, 6, 3>, data_layout = "NHWC"} : (tensor<1x4x3x3xf32>) -> tensor<1x7x6x3xf32>
  func.return %m, %a : tensor<1x7x6x3xf32>, tensor<1x7x6x3xf32>
}
