// RUN: graph-opt %s --split-input-file -p fuse-ops | filecheck %s

/// A per-channel constant add (constant on the left) folds into the conv's bias; relu fuses.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
// CHECK: %[[B:.*]] = nn.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: %{{.*}} = nn.fused_conv %[[X]], %[[W]], %[[B]] {activation = "relu"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NOT: nn.add
// CHECK-NOT: nn.relu
func.func @conv_bias_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %c = nn.constant dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]> : tensor<4x1x1xf32>
  %0 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = nn.add %c, %0 : (tensor<4x1x1xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %2 = nn.relu %1 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %2 : tensor<1x4x6x6xf32>
}

// -----

/// Channels-last: the add sums into the existing constant bias; clip(0, 6) is relu6.
// CHECK-LABEL: func.func @conv_nhwc_existing_bias_relu6
// CHECK: %[[B:.*]] = nn.constant dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf32>
// CHECK-NEXT: nn.fused_conv %{{.*}}, %{{.*}}, %[[B]] {data_layout = "NHWC", activation = "relu6"}
// CHECK-NOT: nn.clip
func.func @conv_nhwc_existing_bias_relu6(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %b = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c = nn.constant dense<0.5> : tensor<1x1x1x2xf32>
  %0 = nn.conv %x, %w, %b {data_layout = "NHWC"} : (tensor<1x5x5x3xf32>, tensor<3x3x3x2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  %1 = nn.add %0, %c : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x3x3x2xf32>
  %2 = nn.clip %1 {min = 0.0 : f32, max = 6.0 : f32} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  func.return %2 : tensor<1x3x3x2xf32>
}

// -----

/// Other clip bounds become activation_params; no bias add leaves the conv without bias.
// CHECK-LABEL: func.func @conv_clip
// CHECK: nn.fused_conv %{{[^,]*}}, %{{[^,]*}} {strides = array<i64: 2, 2>, activation = "clip", activation_params = array<f32: -1.000000e+00, 1.000000e+00>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
func.func @conv_clip(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = nn.conv %x, %w {strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
  %1 = nn.clip %0 {min = -1.0 : f32, max = 1.0 : f32} : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  func.return %1 : tensor<1x4x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @conv_sigmoid_and_tanh
// CHECK: nn.fused_conv {{.*}} {activation = "sigmoid"}
// CHECK: nn.fused_conv {{.*}} {activation = "tanh"}
// CHECK: nn.fused_conv {{.*}} {activation = "leaky_relu", activation_params = array<f32: 1.000000e-01>}
func.func @conv_sigmoid_and_tanh(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %0 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = nn.sigmoid %0 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %2 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %3 = nn.tanh %2 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %4 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %5 = nn.leaky_relu %4 {alpha = 0.1 : f32} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %1, %3, %5 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

/// A bias add without activation stays nn.conv, with the bias as operand.
// CHECK-LABEL: func.func @conv_bias_only
// CHECK: %[[B:.*]] = nn.constant
// CHECK-NEXT: nn.conv %{{.*}}, %{{.*}}, %[[B]] :
// CHECK-NOT: nn.add
func.func @conv_bias_only(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %c = nn.constant dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]> : tensor<4x1x1xf32>
  %0 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = nn.add %0, %c : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  func.return %1 : tensor<1x4x6x6xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>, %[[W:.*]]: tensor<5x3xf32>)
// CHECK: %[[B:.*]] = nn.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: nn.fused_matmul %[[X]], %[[W]], %[[B]] {activation = "relu"} : (tensor<2x5xf32>, tensor<5x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: nn.relu
func.func @matmul_bias_relu(%x: tensor<2x5xf32>, %w: tensor<5x3xf32>) -> tensor<2x3xf32> {
  %c = nn.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %0 = nn.matmul %x, %w : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  %1 = nn.add %0, %c : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %2 = nn.relu %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_bias
// CHECK: nn.fused_matmul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x5xf32>, tensor<5x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @matmul_bias(%x: tensor<2x5xf32>, %w: tensor<5x3xf32>) -> tensor<2x3xf32> {
  %c = nn.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = nn.matmul %x, %w : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  %1 = nn.add %c, %0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// -----

/// PyTorch's export: ((x * (erf(x / sqrt 2) + 1)) * 0.5).
// CHECK-LABEL: func.func @gelu_torch_order
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[G:.*]] = nn.gelu %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %[[G]]
func.func @gelu_torch_order(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = nn.constant dense<1.4142135> : tensor<f32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %half = nn.constant dense<0.5> : tensor<f32>
  %0 = nn.div %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = nn.erf %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.add %1, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = nn.mul %x, %2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.mul %3, %half : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %4 : tensor<2x3xf32>
}

// -----

/// (0.5 * x) * (1 + erf(0.7071 * x)).
// CHECK-LABEL: func.func @gelu_half_first
// CHECK-NEXT: nn.gelu
// CHECK-NEXT: func.return
func.func @gelu_half_first(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = nn.constant dense<0.70710678> : tensor<f32>
  %one = nn.constant dense<1.0> : tensor<1xf32>
  %half = nn.constant dense<0.5> : tensor<f32>
  %0 = nn.mul %s, %x : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.erf %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.add %one, %1 : (tensor<1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.mul %half, %x : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.mul %3, %2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %4 : tensor<2x3xf32>
}

// -----

/// x * (0.5 * (1 + erf(x / sqrt 2))).
// CHECK-LABEL: func.func @gelu_half_inside
// CHECK-NEXT: nn.gelu
// CHECK-NEXT: func.return
func.func @gelu_half_inside(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = nn.constant dense<1.4142135> : tensor<f32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %half = nn.constant dense<0.5> : tensor<f32>
  %0 = nn.div %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = nn.erf %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.add %one, %1 : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.mul %2, %half : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %4 = nn.mul %x, %3 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %4 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-DAG: %[[G:.*]] = nn.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK-DAG: %[[B:.*]] = nn.constant dense<[5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]>
// CHECK: %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 1.000000e-05 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: func.return %[[Y]]
func.func @layer_norm(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %two = nn.constant dense<2.0> : tensor<f32>
  %eps = nn.constant dense<1.0e-5> : tensor<f32>
  %g = nn.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = nn.constant dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>
  %m = nn.reduce_mean %x {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %d = nn.sub %x, %m : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %p = nn.pow %d, %two : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %v = nn.reduce_mean %p {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %ve = nn.add %v, %eps : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %s = nn.sqrt %ve : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %n = nn.div %d, %s : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %y = nn.mul %g, %n : (tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %z = nn.add %b, %y : (tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %z : tensor<2x3x4xf32>
}

// -----

/// Mul-self variance over the last two axes, no gamma and no beta: the scale is ones.
// CHECK-LABEL: func.func @layer_norm_mul_self_no_affine
// CHECK: %[[ONES:.*]] = nn.constant dense<1.000000e+00> : tensor<3x4xf32>
// CHECK-NEXT: nn.layer_norm %{{.*}}, %[[ONES]] {axis = 1 : i64, epsilon = 1.000000e-03 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NOT: nn.reduce_mean
func.func @layer_norm_mul_self_no_affine(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %eps = nn.constant dense<1.0e-3> : tensor<f32>
  %m = nn.reduce_mean %x {axes = array<i64: 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %d = nn.sub %x, %m : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %p = nn.mul %d, %d : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %v = nn.reduce_mean %p {axes = array<i64: 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %ve = nn.add %eps, %v : (tensor<f32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %s = nn.sqrt %ve : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %n = nn.div %d, %s : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  func.return %n : tensor<2x3x4xf32>
}

// -----

/// The conv result is also returned: fusing would compute it twice.
// CHECK-LABEL: func.func @negative_conv_result_used_elsewhere
// CHECK: nn.conv
// CHECK: nn.add
// CHECK: nn.relu
// CHECK-NOT: nn.fused_conv
func.func @negative_conv_result_used_elsewhere(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %c = nn.constant dense<1.0> : tensor<4x1x1xf32>
  %0 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = nn.add %0, %c : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %2 = nn.relu %0 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %1, %2 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

/// The bias-added value is also returned: the relu cannot take the add in.
// CHECK-LABEL: func.func @negative_bias_add_used_elsewhere
// CHECK: %[[C:.*]] = nn.conv
// CHECK-NEXT: nn.relu %[[C]]
func.func @negative_bias_add_used_elsewhere(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %c = nn.constant dense<1.0> : tensor<4x1x1xf32>
  %0 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = nn.add %0, %c : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %2 = nn.relu %1 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %1, %2 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// CHECK-LABEL: func.func @negative_non_constant_bias
// CHECK: nn.conv
// CHECK-NEXT: nn.add
func.func @negative_non_constant_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %0 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = nn.add %0, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  func.return %1 : tensor<1x4x6x6xf32>
}

// -----

/// A [6] constant broadcasts over the width of NCHW data, not over the channels.
// CHECK-LABEL: func.func @negative_bias_on_wrong_axis
// CHECK: nn.conv %{{[^,]*}}, %{{[^,]*}} :
// CHECK-NEXT: nn.add
func.func @negative_bias_on_wrong_axis(%x: tensor<1x3x8x8xf32>, %w: tensor<6x3x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %c = nn.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %0 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x6x6xf32>
  %1 = nn.add %0, %c : (tensor<1x6x6x6xf32>, tensor<6xf32>) -> tensor<1x6x6x6xf32>
  func.return %1 : tensor<1x6x6x6xf32>
}

// -----

/// A constant that grows the result's shape is not a bias.
// CHECK-LABEL: func.func @negative_matmul_add_broadcasts_result
// CHECK: nn.matmul
// CHECK-NEXT: nn.add
func.func @negative_matmul_add_broadcasts_result(%x: tensor<2x5xf32>, %w: tensor<5x3xf32>) -> tensor<4x2x3xf32> {
  %c = nn.constant dense<1.0> : tensor<4x1x3xf32>
  %0 = nn.matmul %x, %w : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  %1 = nn.add %0, %c : (tensor<2x3xf32>, tensor<4x1x3xf32>) -> tensor<4x2x3xf32>
  func.return %1 : tensor<4x2x3xf32>
}

// -----

/// Exp has no fused form, and a clip with only an upper bound is neither relu nor clip.
// CHECK-LABEL: func.func @negative_unsupported_activation
// CHECK: nn.conv
// CHECK-NEXT: nn.exp
// CHECK: nn.conv
// CHECK-NEXT: nn.clip
// CHECK-NOT: nn.fused_conv
func.func @negative_unsupported_activation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %0 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = nn.exp %0 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %2 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %3 = nn.clip %2 {max = 6.0 : f32} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %1, %3 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

/// The erf result is also returned.
// CHECK-LABEL: func.func @negative_gelu_interior_used_elsewhere
// CHECK-NOT: nn.gelu
func.func @negative_gelu_interior_used_elsewhere(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = nn.constant dense<1.4142135> : tensor<f32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %half = nn.constant dense<0.5> : tensor<f32>
  %0 = nn.div %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = nn.erf %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.add %1, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = nn.mul %x, %2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.mul %3, %half : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %4, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

/// 0.6 instead of 0.5, and erf of another value than the one multiplied.
// CHECK-LABEL: func.func @negative_gelu_wrong_constant_or_argument
// CHECK-NOT: nn.gelu
func.func @negative_gelu_wrong_constant_or_argument(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = nn.constant dense<1.4142135> : tensor<f32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %c = nn.constant dense<0.6> : tensor<f32>
  %half = nn.constant dense<0.5> : tensor<f32>
  %0 = nn.div %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = nn.erf %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.add %1, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = nn.mul %x, %2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.mul %3, %c : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %5 = nn.div %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %6 = nn.erf %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = nn.add %6, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %8 = nn.mul %y, %7 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = nn.mul %8, %half : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %4, %9 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

/// The centered value is also returned.
// CHECK-LABEL: func.func @negative_layer_norm_interior_used_elsewhere
// CHECK-NOT: nn.layer_norm
func.func @negative_layer_norm_interior_used_elsewhere(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %two = nn.constant dense<2.0> : tensor<f32>
  %eps = nn.constant dense<1.0e-5> : tensor<f32>
  %m = nn.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %d = nn.sub %x, %m : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %p = nn.pow %d, %two : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %v = nn.reduce_mean %p {axes = array<i64: 1>} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %ve = nn.add %v, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %s = nn.sqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = nn.div %d, %s : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  func.return %n, %d : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

/// Normalizing over the middle axis only is not a layer norm.
// CHECK-LABEL: func.func @negative_layer_norm_not_trailing_axes
// CHECK-NOT: nn.layer_norm
func.func @negative_layer_norm_not_trailing_axes(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %two = nn.constant dense<2.0> : tensor<f32>
  %eps = nn.constant dense<1.0e-5> : tensor<f32>
  %m = nn.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %d = nn.sub %x, %m : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %p = nn.pow %d, %two : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %v = nn.reduce_mean %p {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %ve = nn.add %v, %eps : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x1x4xf32>
  %s = nn.sqrt %ve : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  %n = nn.div %d, %s : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  func.return %n : tensor<2x3x4xf32>
}

// -----

/// SiLU as exporters write it: x * sigmoid(x), either operand order.
// CHECK-LABEL: func.func @silu
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[S:.*]] = nn.silu %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %[[S]]
func.func @silu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.sigmoid %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.mul %0, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// -----

/// relu6(x + 3) / 6, relu6 as max/min: HardSigmoid with alpha 1/6, beta 1/2.
// CHECK-LABEL: func.func @hard_sigmoid_max_min_div
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[H:.*]] = nn.hard_sigmoid %[[X]] {alpha = 0.166666672 : f32}
// CHECK-NEXT: func.return %[[H]]
func.func @hard_sigmoid_max_min_div(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %three = nn.constant dense<3.0> : tensor<f32>
  %zero = nn.constant dense<0.0> : tensor<f32>
  %six = nn.constant dense<6.0> : tensor<f32>
  %0 = nn.add %x, %three : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = nn.max %0, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = nn.min %1, %six : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = nn.div %2, %six : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %3 : tensor<2x3xf32>
}

// -----

/// Keras's hard_swish: x * (relu6(x + 3) * (1/6)).
// CHECK-LABEL: func.func @hard_swish_keras
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[H:.*]] = nn.hard_swish %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %[[H]]
func.func @hard_swish_keras(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %three = nn.constant dense<3.0> : tensor<f32>
  %sixth = nn.constant dense<0.166666672> : tensor<f32>
  %0 = nn.add %x, %three : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = nn.clip %0 {min = 0.0 : f32, max = 6.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.mul %1, %sixth : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = nn.mul %x, %2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %3 : tensor<2x3xf32>
}

// -----

/// Mish with softplus written as log(exp(x) + 1).
// CHECK-LABEL: func.func @mish_log_exp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[M:.*]] = nn.mish %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %[[M]]
func.func @mish_log_exp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %one = nn.constant dense<1.0> : tensor<f32>
  %0 = nn.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.add %0, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = nn.log %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.tanh %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.mul %x, %3 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %4 : tensor<2x3xf32>
}

// -----

/// Gelu's tanh form with x^3 as pow: nn.gelu {approximate = "tanh"}.
// CHECK-LABEL: func.func @gelu_tanh_pow
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[G:.*]] = nn.gelu %[[X]] {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %[[G]]
func.func @gelu_tanh_pow(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %half = nn.constant dense<0.5> : tensor<f32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %three = nn.constant dense<3.0> : tensor<f32>
  %kappa = nn.constant dense<0.044715> : tensor<f32>
  %beta = nn.constant dense<0.797884583> : tensor<f32>
  %0 = nn.pow %x, %three : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = nn.mul %0, %kappa : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = nn.add %x, %1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.mul %beta, %2 : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.tanh %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = nn.add %4, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %6 = nn.mul %x, %half : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %7 = nn.mul %6, %5 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %7 : tensor<2x3xf32>
}

// -----

/// MobileNetV3's squeeze-excite gate: the + 3 stays out of the conv's bias, and
/// the whole HardSigmoid fuses into the conv.
// CHECK-LABEL: func.func @conv_hard_sigmoid_gate
// CHECK: nn.fused_conv %{{.*}}, %{{.*}} {activation = "hard_sigmoid", activation_params = array<f32: 0.166666672, 5.000000e-01>}
// CHECK-NOT: nn.add
// CHECK-NOT: nn.div
func.func @conv_hard_sigmoid_gate(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %three = nn.constant dense<3.0> : tensor<f32>
  %six = nn.constant dense<6.0> : tensor<f32>
  %0 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = nn.add %0, %three : (tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x6x6xf32>
  %2 = nn.clip %1 {min = 0.0 : f32, max = 6.0 : f32} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %3 = nn.div %2, %six : (tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x6x6xf32>
  func.return %3 : tensor<1x4x6x6xf32>
}

// -----

/// A matmul's bias add and SiLU fuse into nn.fused_matmul.
// CHECK-LABEL: func.func @matmul_bias_silu
// CHECK: nn.fused_matmul %{{.*}}, %{{.*}}, %{{.*}} {activation = "silu"}
// CHECK-NOT: nn.sigmoid
func.func @matmul_bias_silu(%x: tensor<2x5xf32>, %w: tensor<5x3xf32>) -> tensor<2x3xf32> {
  %c = nn.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = nn.matmul %x, %w : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  %1 = nn.add %0, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = nn.sigmoid %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.mul %1, %2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %3 : tensor<2x3xf32>
}

// -----

/// Gelu does not fuse into a conv (no runtime has that kernel).
// CHECK-LABEL: func.func @negative_conv_gelu
// CHECK: nn.conv
// CHECK-NEXT: nn.gelu
func.func @negative_conv_gelu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = nn.gelu %0 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %1 : tensor<1x4x6x6xf32>
}

// -----

/// relu6(x + 3) / 6.5 tops out at 6/6.5, not 1: no HardSigmoid. (An offset
/// other than 3 is still one, with beta = offset / 6.)
// CHECK-LABEL: func.func @negative_hard_sigmoid_wrong_scale
// CHECK-NOT: nn.hard_sigmoid
func.func @negative_hard_sigmoid_wrong_scale(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %three = nn.constant dense<3.0> : tensor<f32>
  %six = nn.constant dense<6.5> : tensor<f32>
  %0 = nn.add %x, %three : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = nn.clip %0 {min = 0.0 : f32, max = 6.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.div %1, %six : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}

// -----

/// The sigmoid is also returned: x * sigmoid(x) stays.
// CHECK-LABEL: func.func @negative_silu_interior_used_elsewhere
// CHECK-NOT: nn.silu
func.func @negative_silu_interior_used_elsewhere(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = nn.sigmoid %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.mul %x, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1, %0 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

/// Q, K and V projections of one input with biases: one product of the
/// weights concatenated along their columns, split back along the last axis.
// CHECK-LABEL: func.func @sibling_matmuls_merge
func.func @sibling_matmuls_merge(%x: tensor<?x4x8xf32>) -> (tensor<?x4x2xf32>, tensor<?x4x3xf32>, tensor<?x4x2xf32>) {
  // CHECK-NEXT: %[[W:.*]] = nn.constant dense<{{.*}}> : tensor<8x7xf32>
  // CHECK-NEXT: %[[B:.*]] = nn.constant dense<[1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00, 3.000000e+00, 3.000000e+00]> : tensor<7xf32>
  // CHECK-NEXT: %[[M:.*]] = nn.fused_matmul %x, %[[W]], %[[B]] : (tensor<?x4x8xf32>, tensor<8x7xf32>, tensor<7xf32>) -> tensor<?x4x7xf32>
  // CHECK-NEXT: %[[Q:.*]], %[[K:.*]], %[[V:.*]] = nn.split %[[M]] {axis = 2 : i64, split = array<i64: 2, 3, 2>}
  // CHECK-NEXT: func.return %[[Q]], %[[K]], %[[V]]
  %wq = nn.constant dense<0.5> : tensor<8x2xf32>
  %bq = nn.constant dense<1.0> : tensor<2xf32>
  %wk = nn.constant dense<0.25> : tensor<8x3xf32>
  %bk = nn.constant dense<2.0> : tensor<3xf32>
  %wv = nn.constant dense<0.125> : tensor<8x2xf32>
  %bv = nn.constant dense<3.0> : tensor<2xf32>
  %q = nn.matmul %x, %wq : (tensor<?x4x8xf32>, tensor<8x2xf32>) -> tensor<?x4x2xf32>
  %q1 = nn.add %q, %bq : (tensor<?x4x2xf32>, tensor<2xf32>) -> tensor<?x4x2xf32>
  %k = nn.matmul %x, %wk : (tensor<?x4x8xf32>, tensor<8x3xf32>) -> tensor<?x4x3xf32>
  %k1 = nn.add %k, %bk : (tensor<?x4x3xf32>, tensor<3xf32>) -> tensor<?x4x3xf32>
  %v = nn.matmul %x, %wv : (tensor<?x4x8xf32>, tensor<8x2xf32>) -> tensor<?x4x2xf32>
  %v1 = nn.add %v, %bv : (tensor<?x4x2xf32>, tensor<2xf32>) -> tensor<?x4x2xf32>
  func.return %q1, %k1, %v1 : tensor<?x4x2xf32>, tensor<?x4x3xf32>, tensor<?x4x2xf32>
}

// -----

/// Three products without bias: one matmul and a split are two nodes.
// CHECK-LABEL: func.func @three_unbiased_sibling_matmuls_merge
func.func @three_unbiased_sibling_matmuls_merge(%x: tensor<3x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  // CHECK-NEXT: %[[W:.*]] = nn.constant
  // CHECK-NEXT: %[[M:.*]] = nn.matmul %x, %[[W]] : (tensor<3x8xf32>, tensor<8x6xf32>) -> tensor<3x6xf32>
  // CHECK-NEXT: %[[A:.*]], %[[B:.*]], %[[C:.*]] = nn.split %[[M]] {axis = 1 : i64, split = array<i64: 2, 2, 2>}
  // CHECK-NEXT: func.return %[[A]], %[[B]], %[[C]]
  %w1 = nn.constant dense<0.5> : tensor<8x2xf32>
  %w2 = nn.constant dense<0.25> : tensor<8x2xf32>
  %w3 = nn.constant dense<0.125> : tensor<8x2xf32>
  %a = nn.matmul %x, %w1 : (tensor<3x8xf32>, tensor<8x2xf32>) -> tensor<3x2xf32>
  %b = nn.matmul %x, %w2 : (tensor<3x8xf32>, tensor<8x2xf32>) -> tensor<3x2xf32>
  %c = nn.matmul %x, %w3 : (tensor<3x8xf32>, tensor<8x2xf32>) -> tensor<3x2xf32>
  func.return %a, %b, %c : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

/// Two products without bias or activation: a matmul and a split are as many nodes.
// CHECK-LABEL: func.func @negative_two_unbiased_sibling_matmuls
func.func @negative_two_unbiased_sibling_matmuls(%x: tensor<3x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  // CHECK: nn.matmul %x
  // CHECK: nn.matmul %x
  // CHECK-NOT: nn.split
  %w1 = nn.constant dense<0.5> : tensor<8x2xf32>
  %w2 = nn.constant dense<0.25> : tensor<8x2xf32>
  %a = nn.matmul %x, %w1 : (tensor<3x8xf32>, tensor<8x2xf32>) -> tensor<3x2xf32>
  %b = nn.matmul %x, %w2 : (tensor<3x8xf32>, tensor<8x2xf32>) -> tensor<3x2xf32>
  func.return %a, %b : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

/// Different activations (relu, none): the products are not siblings of one kind.
// CHECK-LABEL: func.func @negative_sibling_matmuls_of_different_activations
func.func @negative_sibling_matmuls_of_different_activations(%x: tensor<3x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  // CHECK: nn.fused_matmul %x, %{{.*}}, %{{.*}} {activation = "relu"}
  // CHECK: nn.fused_matmul %x, %{{.*}}, %{{.*}} :
  // CHECK-NOT: nn.split
  %w1 = nn.constant dense<0.5> : tensor<8x2xf32>
  %w2 = nn.constant dense<0.25> : tensor<8x2xf32>
  %b = nn.constant dense<1.0> : tensor<2xf32>
  %a = nn.fused_matmul %x, %w1, %b {activation = "relu"} : (tensor<3x8xf32>, tensor<8x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %c = nn.fused_matmul %x, %w2, %b : (tensor<3x8xf32>, tensor<8x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %a, %c : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

/// A computed weight: its columns are not known; the two constant ones merge.
// CHECK-LABEL: func.func @sibling_matmuls_leave_computed_weight
func.func @sibling_matmuls_leave_computed_weight(%x: tensor<3x8xf32>, %w: tensor<8x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  // CHECK: nn.fused_matmul %x, %w, %{{.*}} : (tensor<3x8xf32>, tensor<8x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  // CHECK: nn.fused_matmul %x, %{{.*}}, %{{.*}} : (tensor<3x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK-NEXT: nn.split %{{.*}} {axis = 1 : i64, split = array<i64: 2, 2>}
  %w1 = nn.constant dense<0.5> : tensor<8x2xf32>
  %w2 = nn.constant dense<0.25> : tensor<8x2xf32>
  %bias = nn.constant dense<1.0> : tensor<2xf32>
  %a = nn.fused_matmul %x, %w, %bias : (tensor<3x8xf32>, tensor<8x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %b = nn.fused_matmul %x, %w1, %bias : (tensor<3x8xf32>, tensor<8x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %c = nn.fused_matmul %x, %w2, %bias : (tensor<3x8xf32>, tensor<8x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %a, %b, %c : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

/// The fused conv takes the device of the ops it replaces, and waits on what
/// they waited on (through its new bias, which waits).
// CHECK-LABEL: func.func @fused_conv_keeps_device_and_control_inputs
func.func @fused_conv_keeps_device_and_control_inputs(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: %[[B:.*]] = nn.constant {tf.device = "/device:GPU:0", tf.control_inputs = ["check"]}
  // CHECK-NEXT: nn.fused_conv %x, %w, %[[B]] {tf.device = "/device:GPU:0", activation = "relu"}
  // CHECK-NOT: nn.relu
  %w = nn.constant dense<0.5> : tensor<4x3x1x1xf32>
  %b = nn.constant dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]> : tensor<4x1x1xf32>
  %c = nn.conv %x, %w {tf.device = "/device:GPU:0"} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
  %a = nn.add %c, %b {tf.device = "/device:GPU:0", tf.control_inputs = ["check"]} : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r = nn.relu %a {tf.device = "/device:GPU:0"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}
