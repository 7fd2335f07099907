// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s
func.func @conv_transpose_rank(%x: tensor<1x4x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x7xf32> {
  %0 = nn.conv_transpose %x, %w : (tensor<1x4x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x7xf32>
  func.return %0 : tensor<1x3x7xf32>
}
// CHECK: nn.conv_transpose needs input and filter of equal rank 3 to 5, got 3 and 4

// -----

func.func @conv_transpose_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x3x7x7xf32> {
  %0 = nn.conv_transpose %x, %w : (tensor<1x4x5x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  func.return %0 : tensor<1x3x7x7xf32>
}
// CHECK: input has 4 channels, filter expects 2

// -----

func.func @conv_transpose_group(%x: tensor<1x3x5x5xf32>, %w: tensor<3x3x3x3xf32>) -> tensor<1x6x7x7xf32> {
  %0 = nn.conv_transpose %x, %w {group = 2 : i64} : (tensor<1x3x5x5xf32>, tensor<3x3x3x3xf32>) -> tensor<1x6x7x7xf32>
  func.return %0 : tensor<1x6x7x7xf32>
}
// CHECK: group 2 does not divide the filter's 3 input channels

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x3x5x5xf32>, %w: tensor<3x3x3x3xf32>) -> tensor<1x3x7x7xf32> {
  %0 = nn.conv_transpose %x, %w {output_padding = array<i64: 1>} : (tensor<1x3x5x5xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  func.return %0 : tensor<1x3x7x7xf32>
}
// CHECK: output_padding needs 2 non-negative values

// -----

func.func @conv_transpose_output_shape_too_big(%x: tensor<1x2x5xf32>, %w: tensor<2x3x4xf32>) -> tensor<1x3x14xf32> {
  %0 = nn.conv_transpose %x, %w {strides = array<i64: 2>, output_shape = array<i64: 14>} : (tensor<1x2x5xf32>, tensor<2x3x4xf32>) -> tensor<1x3x14xf32>
  func.return %0 : tensor<1x3x14xf32>
}
// CHECK: output_shape [14] exceeds the full transposed output [12] by a stride or more

// -----

func.func @conv_transpose_wrong_result(%x: tensor<1x3x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %0 = nn.conv_transpose %x, %w : (tensor<1x3x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  func.return %0 : tensor<1x2x5x5xf32>
}
// CHECK: result #0 has type tensor<1x2x5x5xf32>, but the operands imply tensor<1x2x7x7xf32>

// -----

func.func @matmul_contraction(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) -> tensor<3x6xf32> {
  %0 = nn.matmul %a, %b : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  func.return %0 : tensor<3x6xf32>
}
// CHECK: contracted dims differ: 4 (lhs) and 5 (rhs)

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x6xf32>) -> tensor<2x3x6xf32> {
  %0 = nn.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x6xf32>) -> tensor<2x3x6xf32>
  func.return %0 : tensor<2x3x6xf32>
}
// CHECK: shapes [2] and [3] are not broadcastable

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: matmul operands must have rank >= 1

// -----

func.func @gemm_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = nn.gemm %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  func.return %0 : tensor<3x5xf32>
}
// CHECK: gemm needs 2-D a and b, got ranks 3 and 2

// -----

func.func @gemm_c_shape(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3x1x5xf32>) -> tensor<3x5xf32> {
  %0 = nn.gemm %a, %b, %c : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<3x1x5xf32>) -> tensor<3x5xf32>
  func.return %0 : tensor<3x5xf32>
}
// CHECK: c of shape [3, 1, 5] does not broadcast to [3, 5]

// -----

func.func @gemm_trans_flag(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = nn.gemm %a, %b {trans_a = 2 : i64} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  func.return %0 : tensor<3x5xf32>
}
// CHECK: trans_a must be 0 or 1, got 2

// -----

func.func @layer_norm_scale(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %0 = nn.layer_norm %x, %s : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  func.return %0 : tensor<2x3x4xf32>
}
// CHECK: scale of shape [3] does not broadcast to the normalized dims [4]

// -----

func.func @layer_norm_axis(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0 = nn.layer_norm %x, %s {axis = 3 : i64} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  func.return %0 : tensor<2x3x4xf32>
}
// CHECK: axis 3 is out of range for rank 3

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.softmax %x {axis = -3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
// CHECK: axis -3 is out of range for rank 2

// -----

func.func @max_pool_kernel(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32> {
  %0 = nn.max_pool %x {kernel_shape = array<i64: 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  func.return %0 : tensor<1x3x7x7xf32>
}
// CHECK: kernel_shape needs 2 positive values, got (2,)

// -----

func.func @max_pool_rank(%x: tensor<3x8xf32>) -> tensor<3x7xf32> {
  %0 = nn.max_pool %x {kernel_shape = array<i64: 2>} : (tensor<3x8xf32>) -> tensor<3x7xf32>
  func.return %0 : tensor<3x7xf32>
}
// CHECK: nn.max_pool needs an input of rank 3 to 5, got 2

// -----

func.func @max_pool_pads(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x9x7xf32> {
  %0 = nn.max_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 2, 0, 0, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x9x7xf32>
  func.return %0 : tensor<1x3x9x7xf32>
}
// CHECK: pads [2, 0, 0, 0] must be non-negative and smaller than the window [2, 2]

// -----

func.func @avg_pool_auto_pad(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %0 = nn.avg_pool %x {kernel_shape = array<i64: 2, 2>, auto_pad = "SAME"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  func.return %0 : tensor<1x3x8x8xf32>
}
// CHECK: auto_pad must be one of ('NOTSET', 'SAME_UPPER', 'SAME_LOWER', 'VALID')

// -----

func.func @avg_pool_ceil_mode(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32> {
  %0 = nn.avg_pool %x {kernel_shape = array<i64: 2, 2>, ceil_mode = 3 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  func.return %0 : tensor<1x3x7x7xf32>
}
// CHECK: ceil_mode must be 0 or 1, got 3

// -----

func.func @avg_pool_layout(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32> {
  %0 = nn.avg_pool %x {kernel_shape = array<i64: 2, 2>, data_layout = "NCW"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  func.return %0 : tensor<1x3x7x7xf32>
}
// CHECK: data_layout must be one of ('NCHW', 'NHWC'), got 'NCW'

// -----

func.func @global_avg_pool_result(%x: tensor<1x3x8x8xf32>) -> tensor<1x3xf32> {
  %0 = nn.global_avg_pool %x : (tensor<1x3x8x8xf32>) -> tensor<1x3xf32>
  func.return %0 : tensor<1x3xf32>
}
// CHECK: result #0 has type tensor<1x3xf32>, but the operands imply tensor<1x3x1x1xf32>

// -----

func.func @reduce_axis_range(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.reduce_sum %x {axes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
// CHECK: reduction axis 2 is out of range for rank 2

// -----

func.func @reduce_repeated_axis(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = nn.reduce_mean %x {axes = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  func.return %0 : tensor<2x1xf32>
}
// CHECK: reduction axes [1, -1] repeat an axis

// -----

func.func @reduce_keepdims(%x: tensor<2x3xf32>) -> tensor<1x1xf32> {
  %0 = nn.reduce_max %x {keepdims = 2 : i64} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  func.return %0 : tensor<1x1xf32>
}
// CHECK: keepdims must be 0 or 1, got 2

// -----

func.func @attention_rank(%q: tensor<4x5x8xf32>, %k: tensor<4x7x8xf32>, %v: tensor<4x7x8xf32>) -> tensor<4x5x8xf32> {
  %0 = nn.attention %q, %k, %v : (tensor<4x5x8xf32>, tensor<4x7x8xf32>, tensor<4x7x8xf32>) -> tensor<4x5x8xf32>
  func.return %0 : tensor<4x5x8xf32>
}
// CHECK: attention needs 4-D query, key and value, got ranks [3, 3, 3]

// -----

func.func @attention_head_dim(%q: tensor<1x4x5x8xf32>, %k: tensor<1x4x7x6xf32>, %v: tensor<1x4x7x8xf32>) -> tensor<1x4x5x8xf32> {
  %0 = nn.attention %q, %k, %v : (tensor<1x4x5x8xf32>, tensor<1x4x7x6xf32>, tensor<1x4x7x8xf32>) -> tensor<1x4x5x8xf32>
  func.return %0 : tensor<1x4x5x8xf32>
}
// CHECK: contracted dims differ: 8 (lhs) and 6 (rhs)

// -----

func.func @attention_kv_lengths(%q: tensor<1x4x5x8xf32>, %k: tensor<1x4x7x8xf32>, %v: tensor<1x4x6x8xf32>) -> tensor<1x4x5x8xf32> {
  %0 = nn.attention %q, %k, %v : (tensor<1x4x5x8xf32>, tensor<1x4x7x8xf32>, tensor<1x4x6x8xf32>) -> tensor<1x4x5x8xf32>
  func.return %0 : tensor<1x4x5x8xf32>
}
// CHECK: key and value sequence lengths differ: 7 and 6

// -----

func.func @attention_mask(%q: tensor<1x4x5x8xf32>, %k: tensor<1x4x7x8xf32>, %v: tensor<1x4x7x8xf32>, %m: tensor<1x1x5x6xf32>) -> tensor<1x4x5x8xf32> {
  %0 = nn.attention %q, %k, %v, %m : (tensor<1x4x5x8xf32>, tensor<1x4x7x8xf32>, tensor<1x4x7x8xf32>, tensor<1x1x5x6xf32>) -> tensor<1x4x5x8xf32>
  func.return %0 : tensor<1x4x5x8xf32>
}
// CHECK: mask of shape [1, 1, 5, 6] does not broadcast to the scores [1, 4, 5, 7]

// -----

func.func @attention_causal_flag(%q: tensor<1x4x5x8xf32>, %k: tensor<1x4x7x8xf32>, %v: tensor<1x4x7x8xf32>) -> tensor<1x4x5x8xf32> {
  %0 = nn.attention %q, %k, %v {is_causal = 2 : i64} : (tensor<1x4x5x8xf32>, tensor<1x4x7x8xf32>, tensor<1x4x7x8xf32>) -> tensor<1x4x5x8xf32>
  func.return %0 : tensor<1x4x5x8xf32>
}
// CHECK: is_causal must be 0 or 1, got 2
