// RUN: graph-opt %s --split-input-file -p convert-layout | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'convert-layout{keep-io-layout=false}' | filecheck %s --check-prefix=IO

/// The gradient kernels of a training graph move to NCHW as Grappler's
/// LayoutOptimizer moves them. conv_filter_grad: both data operands are
/// transposed, its filter_shape becomes OIHW and its OIHW result goes back
/// to HWIO.
// CHECK-LABEL: func.func @conv_filter_grad
// CHECK-DAG:     %[[DY:.*]] = nn.transpose %dy {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x6x6x4xf32>) -> tensor<2x4x6x6xf32>
// CHECK-DAG:     %[[X:.*]] = nn.transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x6x6x3xf32>) -> tensor<2x3x6x6xf32>
// CHECK:         %[[DW:.*]] = nn.conv_filter_grad %[[X]], %[[DY]] {filter_shape = array<i64: 4, 3, 3, 3>, auto_pad = "SAME_UPPER", data_layout = "NCHW"} : (tensor<2x3x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<4x3x3x3xf32>
// CHECK-NEXT:    %[[HWIO:.*]] = nn.transpose %[[DW]] {perm = array<i64: 2, 3, 1, 0>} : (tensor<4x3x3x3xf32>) -> tensor<3x3x3x4xf32>
// CHECK-NEXT:    func.return %[[HWIO]]
func.func @conv_filter_grad(%x: tensor<2x6x6x3xf32>, %dy: tensor<2x6x6x4xf32>) -> tensor<3x3x3x4xf32> {
  %dw = nn.conv_filter_grad %x, %dy {filter_shape = array<i64: 3, 3, 3, 4>, auto_pad = "SAME_UPPER", data_layout = "NHWC"} : (tensor<2x6x6x3xf32>, tensor<2x6x6x4xf32>) -> tensor<3x3x3x4xf32>
  func.return %dw : tensor<3x3x3x4xf32>
}

// -----

/// batch_norm_grad: the output gradient and the input move; the per-channel
/// gradients of scale and bias are the same in both layouts.
// CHECK-LABEL: func.func @batch_norm_grad
// CHECK-DAG:     %[[X:.*]] = nn.transpose %x {perm = array<i64: 0, 3, 1, 2>}
// CHECK-DAG:     %[[DY:.*]] = nn.transpose %dy {perm = array<i64: 0, 3, 1, 2>}
// CHECK:         %[[DX:.*]], %[[DS:.*]], %[[DB:.*]] = nn.batch_norm_grad %[[DY]], %[[X]], %s, %s, %s {epsilon = 1.000000e-03 : f32, data_layout = "NCHW"}
// CHECK-NEXT:    %[[BACK:.*]] = nn.transpose %[[DX]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    func.return %[[BACK]], %[[DS]], %[[DB]]
func.func @batch_norm_grad(%dy: tensor<2x3x4x2xf32>, %x: tensor<2x3x4x2xf32>, %s: tensor<2xf32>) -> (tensor<2x3x4x2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %dx, %ds, %db = nn.batch_norm_grad %dy, %x, %s, %s, %s {epsilon = 1.000000e-03 : f32, data_layout = "NHWC"} : (tensor<2x3x4x2xf32>, tensor<2x3x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x3x4x2xf32>, tensor<2xf32>, tensor<2xf32>)
  func.return %dx, %ds, %db : tensor<2x3x4x2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

/// The training-mode batch norm (FusedBatchNorm with is_training): only its
/// output is data.
// CHECK-LABEL: func.func @batch_norm_training
// CHECK:         %[[X:.*]] = nn.transpose %x {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    %[[Y:.*]], %[[M:.*]], %{{.*}}, %{{.*}}, %{{.*}} = nn.batch_norm_training %[[X]], %s, %s, %s, %s {data_layout = "NCHW"}
// CHECK-NEXT:    %[[BACK:.*]] = nn.transpose %[[Y]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    func.return %[[BACK]], %[[M]]
func.func @batch_norm_training(%x: tensor<2x3x4x2xf32>, %s: tensor<2xf32>) -> (tensor<2x3x4x2xf32>, tensor<2xf32>) {
  %y, %m, %v, %sm, %sv = nn.batch_norm_training %x, %s, %s, %s, %s {data_layout = "NHWC"} : (tensor<2x3x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x3x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  func.return %y, %m : tensor<2x3x4x2xf32>, tensor<2xf32>
}

// -----

/// Pooling gradients: avg_pool_grad's input_shape moves with the layout; the
/// two share one transpose of the output gradient.
// CHECK-LABEL: func.func @pool_grads
// CHECK-DAG:     %[[DY:.*]] = nn.transpose %dy {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x4x3xf32>) -> tensor<1x3x5x4xf32>
// CHECK-DAG:     %[[X:.*]] = nn.transpose %x {perm = array<i64: 0, 3, 1, 2>}
// CHECK:         %[[M:.*]] = nn.max_pool_grad %[[X]], %[[DY]] {kernel_shape = array<i64: 3, 3>, data_layout = "NCHW"} : (tensor<1x3x7x6xf32>, tensor<1x3x5x4xf32>) -> tensor<1x3x7x6xf32>
// CHECK-NEXT:    nn.transpose %[[M]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[A:.*]] = nn.avg_pool_grad %[[DY]] {kernel_shape = array<i64: 3, 3>, input_shape = array<i64: 1, 3, 7, 6>, data_layout = "NCHW"} : (tensor<1x3x5x4xf32>) -> tensor<1x3x7x6xf32>
// CHECK-NEXT:    nn.transpose %[[A]] {perm = array<i64: 0, 2, 3, 1>}
func.func @pool_grads(%x: tensor<1x7x6x3xf32>, %dy: tensor<1x5x4x3xf32>) -> (tensor<1x7x6x3xf32>, tensor<1x7x6x3xf32>) {
  %m = nn.max_pool_grad %x, %dy {kernel_shape = array<i64: 3, 3>, data_layout = "NHWC"} : (tensor<1x7x6x3xf32>, tensor<1x5x4x3xf32>) -> tensor<1x7x6x3xf32>
  %a = nn.avg_pool_grad %dy {kernel_shape = array<i64: 3, 3>, input_shape = array<i64: 1, 7, 6, 3>, data_layout = "NHWC"} : (tensor<1x5x4x3xf32>) -> tensor<1x7x6x3xf32>
  func.return %m, %a : tensor<1x7x6x3xf32>, tensor<1x7x6x3xf32>
}

// -----

/// A training step's chain: the forward conv and the filter gradient share
/// the transpose of %x. relu_grad is layout-agnostic: with the signature free
/// to change, it runs in NCHW and only the HWIO filter gradient is transposed.
// CHECK-LABEL: func.func @training_chain
// CHECK:         %[[X:.*]] = nn.transpose %x {perm = array<i64: 0, 3, 1, 2>}
// CHECK:         nn.conv %[[X]], %{{.*}} {auto_pad = "SAME_UPPER", data_layout = "NCHW"}
// CHECK:         nn.conv_filter_grad %[[X]], %{{.*}} {filter_shape = array<i64: 4, 2, 3, 3>, auto_pad = "SAME_UPPER", data_layout = "NCHW"}
// IO-LABEL: func.func @training_chain(%x: tensor<1x2x6x6xf32>, %dy: tensor<1x4x6x6xf32>) -> tensor<3x3x2x4xf32>
// IO:         %[[G:.*]] = nn.relu_grad %dy, %{{.*}} : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
// IO-NEXT:    %[[DW:.*]] = nn.conv_filter_grad %x, %[[G]]
// IO-NEXT:    %[[HWIO:.*]] = nn.transpose %[[DW]] {perm = array<i64: 2, 3, 1, 0>}
// IO-NEXT:    func.return %[[HWIO]]
func.func @training_chain(%x: tensor<1x6x6x2xf32>, %dy: tensor<1x6x6x4xf32>) -> tensor<3x3x2x4xf32> {
  %w = nn.constant dense<0.5> : tensor<3x3x2x4xf32>
  %y = nn.conv %x, %w {auto_pad = "SAME_UPPER", data_layout = "NHWC"} : (tensor<1x6x6x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32>
  %r = nn.relu %y : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %g = nn.relu_grad %dy, %r : (tensor<1x6x6x4xf32>, tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %dw = nn.conv_filter_grad %x, %g {filter_shape = array<i64: 3, 3, 2, 4>, auto_pad = "SAME_UPPER", data_layout = "NHWC"} : (tensor<1x6x6x2xf32>, tensor<1x6x6x4xf32>) -> tensor<3x3x2x4xf32>
  func.return %dw : tensor<3x3x2x4xf32>
}

// -----

/// Gradients already in NCHW are left as they are.
// CHECK-LABEL: func.func @negative_nchw_gradients
// CHECK-NOT:     nn.transpose
func.func @negative_nchw_gradients(%x: tensor<1x3x7x6xf32>, %dy: tensor<1x3x5x4xf32>) -> (tensor<1x3x7x6xf32>, tensor<1x3x7x6xf32>) {
  %m = nn.max_pool_grad %x, %dy {kernel_shape = array<i64: 3, 3>, data_layout = "NCHW"} : (tensor<1x3x7x6xf32>, tensor<1x3x5x4xf32>) -> tensor<1x3x7x6xf32>
  %a = nn.avg_pool_grad %dy {kernel_shape = array<i64: 3, 3>, input_shape = array<i64: 1, 3, 7, 6>} : (tensor<1x3x5x4xf32>) -> tensor<1x3x7x6xf32>
  func.return %m, %a : tensor<1x3x7x6xf32>, tensor<1x3x7x6xf32>
}

// -----

/// An unranked input: its layout cannot be moved.
// CHECK-LABEL: func.func @negative_unranked_max_pool_grad
// CHECK-NOT:     nn.transpose
// CHECK:         nn.max_pool_grad %x, %dy {kernel_shape = array<i64: 3, 3>, data_layout = "NHWC"}
func.func @negative_unranked_max_pool_grad(%x: tensor<*xf32>, %dy: tensor<1x5x4x3xf32>) -> tensor<*xf32> {
  %m = nn.max_pool_grad %x, %dy {kernel_shape = array<i64: 3, 3>, data_layout = "NHWC"} : (tensor<*xf32>, tensor<1x5x4x3xf32>) -> tensor<*xf32>
  func.return %m : tensor<*xf32>
}
