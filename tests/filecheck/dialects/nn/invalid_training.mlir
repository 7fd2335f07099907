// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s
func.func @relu_grad_shapes(%g: tensor<2xf32>, %f: tensor<3xf32>) -> tensor<2xf32> {
  %0 = nn.relu_grad %g, %f : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
// CHECK: gradients [2] and features [3] differ in shape

// -----

func.func @filter_shape_rank(%x: tensor<1x6x6x3xf32>, %dy: tensor<1x3x3x5xf32>) -> tensor<3x3x5xf32> {
  %0 = nn.conv_filter_grad %x, %dy {filter_shape = array<i64: 3, 3, 5>, data_layout = "NHWC"} : (tensor<1x6x6x3xf32>, tensor<1x3x3x5xf32>) -> tensor<3x3x5xf32>
  func.return %0 : tensor<3x3x5xf32>
}
// CHECK: filter_shape must be 4 sizes, got [3, 3, 5]

// -----

func.func @batch_norm_statistics(%x: tensor<2x3xf32>, %p: tensor<3xf32>) -> tensor<2x3xf32> {
  %y, %m, %v, %sm, %sv = nn.batch_norm_training %x, %p, %p, %p, %p {data_layout = "NHWC"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return %y : tensor<2x3xf32>
}
// CHECK: result #1 has type tensor<2xf32>, but the operands imply tensor<3xf32>

// -----

func.func @max_pool_grad_output_grad(%x: tensor<1x6x6x3xf32>, %dy: tensor<1x3x3x3xf32>) -> tensor<1x6x6x3xf32> {
  %0 = nn.max_pool_grad %x, %dy {kernel_shape = array<i64: 3, 3>, data_layout = "NHWC"} : (tensor<1x6x6x3xf32>, tensor<1x3x3x3xf32>) -> tensor<1x6x6x3xf32>
  func.return %0 : tensor<1x6x6x3xf32>
}
// CHECK: output gradient [1, 3, 3, 3] is not the pooled shape [1, 4, 4, 3]

// -----

func.func @avg_pool_grad_input_shape(%dy: tensor<1x4x4x3xf32>) -> tensor<1x6x6x4xf32> {
  %0 = nn.avg_pool_grad %dy {kernel_shape = array<i64: 3, 3>, input_shape = array<i64: 1, 6, 6, 4>, data_layout = "NHWC"} : (tensor<1x4x4x3xf32>) -> tensor<1x6x6x4xf32>
  func.return %0 : tensor<1x6x6x4xf32>
}
// CHECK: output gradient [1, 4, 4, 3] is not the pooled shape [1, 4, 4, 4]

// -----

func.func @max_pool_grad_result_type(%x: tensor<1x6x6x3xf32>, %dy: tensor<1x4x4x3xf32>) -> tensor<1x6x6x4xf32> {
  %0 = nn.max_pool_grad %x, %dy {kernel_shape = array<i64: 3, 3>, data_layout = "NHWC"} : (tensor<1x6x6x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x6x6x4xf32>
  func.return %0 : tensor<1x6x6x4xf32>
}
// CHECK: result #0 has type tensor<1x6x6x4xf32>, but the operands imply tensor<1x6x6x3xf32>
