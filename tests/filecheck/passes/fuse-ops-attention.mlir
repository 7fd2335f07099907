// RUN: graph-opt %s --split-input-file -p fuse-ops | filecheck %s

/// torch's sdpa path: sqrt(scale) on q and on kᵀ; kᵀ's transpose from [b, s, h, d]
/// composes with the swap into the key's head transpose.
// CHECK-LABEL: func.func @sdpa_scale_split
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x5x8xf32>, %[[K:.*]]: tensor<2x5x4x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>)
// CHECK: %[[KH:.*]] = nn.transpose %[[K]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-NEXT: %{{.*}} = nn.attention %[[Q]], %[[KH]], %[[V]] {scale = 0.124999993 : f32}
// CHECK-NOT: nn.softmax
// CHECK-NOT: nn.matmul
func.func @sdpa_scale_split(%q: tensor<2x4x5x8xf32>, %k: tensor<2x5x4x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32> {
  %s = nn.constant dense<0.353553385> : tensor<f32>
  %kt = nn.transpose %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x5x4x8xf32>) -> tensor<2x4x8x5xf32>
  %qs = nn.mul %q, %s : (tensor<2x4x5x8xf32>, tensor<f32>) -> tensor<2x4x5x8xf32>
  %ks = nn.mul %kt, %s : (tensor<2x4x8x5xf32>, tensor<f32>) -> tensor<2x4x8x5xf32>
  %0 = nn.matmul %qs, %ks : (tensor<2x4x5x8xf32>, tensor<2x4x8x5xf32>) -> tensor<2x4x5x5xf32>
  %1 = nn.softmax %0 {axis = -1 : i64} : (tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %2 = nn.matmul %1, %v : (tensor<2x4x5x5xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32>
  func.return %2 : tensor<2x4x5x8xf32>
}

// -----

/// Eager attention: the scores divided by sqrt(head_dim), a mask added; kᵀ's
/// transpose swaps the last two dims, so the key is its input.
// CHECK-LABEL: func.func @eager_div_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x5x8xf32>, %[[K:.*]]: tensor<2x4x7x8xf32>, %[[V:.*]]: tensor<2x4x7x8xf32>, %[[M:.*]]: tensor<2x1x1x7xf32>)
// CHECK: %{{.*}} = nn.attention %[[Q]], %[[K]], %[[V]], %[[M]] {scale = 2.500000e-01 : f32}
// CHECK-NOT: nn.transpose
// CHECK-NOT: nn.div
func.func @eager_div_mask(%q: tensor<2x4x5x8xf32>, %k: tensor<2x4x7x8xf32>, %v: tensor<2x4x7x8xf32>, %m: tensor<2x1x1x7xf32>) -> tensor<2x4x5x8xf32> {
  %c = nn.constant dense<4.0> : tensor<1xf32>
  %kt = nn.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x4x7x8xf32>) -> tensor<2x4x8x7xf32>
  %0 = nn.matmul %q, %kt : (tensor<2x4x5x8xf32>, tensor<2x4x8x7xf32>) -> tensor<2x4x5x7xf32>
  %1 = nn.div %0, %c : (tensor<2x4x5x7xf32>, tensor<1xf32>) -> tensor<2x4x5x7xf32>
  %2 = nn.add %m, %1 : (tensor<2x1x1x7xf32>, tensor<2x4x5x7xf32>) -> tensor<2x4x5x7xf32>
  %3 = nn.softmax %2 {axis = 3 : i64} : (tensor<2x4x5x7xf32>) -> tensor<2x4x5x7xf32>
  %4 = nn.matmul %3, %v : (tensor<2x4x5x7xf32>, tensor<2x4x7x8xf32>) -> tensor<2x4x5x8xf32>
  func.return %4 : tensor<2x4x5x8xf32>
}

// -----

/// No scale and a key already transposed elsewhere: scale 1, a new transpose of kᵀ.
// CHECK-LABEL: func.func @unscaled_key_input
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x3x4xf32>, %[[KT:.*]]: tensor<1x2x4x3xf32>, %[[V:.*]]: tensor<1x2x3x4xf32>)
// CHECK: %[[K:.*]] = nn.transpose %[[KT]] {perm = array<i64: 0, 1, 3, 2>}
// CHECK-NEXT: nn.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f32}
func.func @unscaled_key_input(%q: tensor<1x2x3x4xf32>, %kt: tensor<1x2x4x3xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %0 = nn.matmul %q, %kt : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
  %1 = nn.softmax %0 {axis = -1 : i64} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %2 = nn.matmul %1, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  func.return %2 : tensor<1x2x3x4xf32>
}

// -----

/// The attention probabilities are returned too: nothing fuses.
// CHECK-LABEL: func.func @negative_probs_used_outside
// CHECK-NOT: nn.attention
// CHECK: nn.softmax
func.func @negative_probs_used_outside(%q: tensor<1x2x3x4xf32>, %kt: tensor<1x2x4x3xf32>, %v: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x3xf32>) {
  %0 = nn.matmul %q, %kt : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
  %1 = nn.softmax %0 {axis = -1 : i64} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %2 = nn.matmul %1, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  func.return %2, %1 : tensor<1x2x3x4xf32>, tensor<1x2x3x3xf32>
}

// -----

/// Softmax over another axis than the keys' is no attention.
// CHECK-LABEL: func.func @negative_softmax_axis
// CHECK-NOT: nn.attention
func.func @negative_softmax_axis(%q: tensor<1x2x3x4xf32>, %kt: tensor<1x2x4x3xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %0 = nn.matmul %q, %kt : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
  %1 = nn.softmax %0 {axis = 2 : i64} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %2 = nn.matmul %1, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  func.return %2 : tensor<1x2x3x4xf32>
}

// -----

/// The added value broadcasts the scores up (a bigger batch): no mask, no fusion.
// CHECK-LABEL: func.func @negative_mask_grows_scores
// CHECK-NOT: nn.attention
func.func @negative_mask_grows_scores(%q: tensor<1x2x3x4xf32>, %kt: tensor<1x2x4x3xf32>, %v: tensor<1x2x3x4xf32>, %m: tensor<5x2x3x3xf32>) -> tensor<5x2x3x4xf32> {
  %0 = nn.matmul %q, %kt : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
  %1 = nn.add %0, %m : (tensor<1x2x3x3xf32>, tensor<5x2x3x3xf32>) -> tensor<5x2x3x3xf32>
  %2 = nn.softmax %1 {axis = -1 : i64} : (tensor<5x2x3x3xf32>) -> tensor<5x2x3x3xf32>
  %3 = nn.matmul %2, %v : (tensor<5x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<5x2x3x4xf32>
  func.return %3 : tensor<5x2x3x4xf32>
}

// -----

/// 3-D scores (no head dim): not the 4-D attention.
// CHECK-LABEL: func.func @negative_rank_3
// CHECK-NOT: nn.attention
func.func @negative_rank_3(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x3xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = nn.matmul %q, %kt : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
  %1 = nn.softmax %0 {axis = -1 : i64} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %2 = nn.matmul %1, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %2 : tensor<2x3x4xf32>
}

// -----

/// dynamo's batched transpose of the key: [b, h, s, d] -> [b*h, s, d], swap, scale,
/// back to [b, h, d, s]; the key is the 4-D value before it.
// CHECK-LABEL: func.func @dynamo_batched_key_transpose
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x6x16xf32>, %[[K:.*]]: tensor<1x4x6x16xf32>, %[[V:.*]]: tensor<1x4x6x16xf32>)
// CHECK: nn.attention %[[Q]], %[[K]], %[[V]] {scale = 2.500000e-01 : f32}
// CHECK-NOT: nn.reshape
func.func @dynamo_batched_key_transpose(%q: tensor<1x4x6x16xf32>, %k: tensor<1x4x6x16xf32>, %v: tensor<1x4x6x16xf32>) -> tensor<1x4x6x16xf32> {
  %s = nn.constant dense<0.5> : tensor<f32>
  %flat = nn.constant dense<[4, 6, 16]> : tensor<3xi64>
  %back = nn.constant dense<[1, 4, 16, 6]> : tensor<4xi64>
  %0 = nn.reshape %k, %flat : (tensor<1x4x6x16xf32>, tensor<3xi64>) -> tensor<4x6x16xf32>
  %1 = nn.transpose %0 {perm = array<i64: 0, 2, 1>} : (tensor<4x6x16xf32>) -> tensor<4x16x6xf32>
  %2 = nn.mul %1, %s : (tensor<4x16x6xf32>, tensor<f32>) -> tensor<4x16x6xf32>
  %3 = nn.reshape %2, %back : (tensor<4x16x6xf32>, tensor<4xi64>) -> tensor<1x4x16x6xf32>
  %qs = nn.mul %q, %s : (tensor<1x4x6x16xf32>, tensor<f32>) -> tensor<1x4x6x16xf32>
  %4 = nn.matmul %qs, %3 : (tensor<1x4x6x16xf32>, tensor<1x4x16x6xf32>) -> tensor<1x4x6x6xf32>
  %5 = nn.softmax %4 {axis = -1 : i64} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %6 = nn.matmul %5, %v : (tensor<1x4x6x6xf32>, tensor<1x4x6x16xf32>) -> tensor<1x4x6x16xf32>
  func.return %6 : tensor<1x4x6x16xf32>
}

// -----

/// The regrouping reshapes change the heads ([1, 4] -> [2, 2]): the key is not
/// %k but kᵀ transposed back.
// CHECK-LABEL: func.func @batched_key_regrouped
// CHECK: %[[KT:.*]] = nn.reshape %{{.*}}, %{{.*}} : (tensor<4x16x6xf32>, tensor<4xi64>) -> tensor<2x2x16x6xf32>
// CHECK: %[[K:.*]] = nn.transpose %[[KT]] {perm = array<i64: 0, 1, 3, 2>}
// CHECK-NEXT: nn.attention %{{.*}}, %[[K]], %{{.*}} {scale = 1.000000e+00 : f32}
func.func @batched_key_regrouped(%q: tensor<2x2x6x16xf32>, %k: tensor<1x4x6x16xf32>, %v: tensor<2x2x6x16xf32>) -> tensor<2x2x6x16xf32> {
  %flat = nn.constant dense<[4, 6, 16]> : tensor<3xi64>
  %back = nn.constant dense<[2, 2, 16, 6]> : tensor<4xi64>
  %0 = nn.reshape %k, %flat : (tensor<1x4x6x16xf32>, tensor<3xi64>) -> tensor<4x6x16xf32>
  %1 = nn.transpose %0 {perm = array<i64: 0, 2, 1>} : (tensor<4x6x16xf32>) -> tensor<4x16x6xf32>
  %3 = nn.reshape %1, %back : (tensor<4x16x6xf32>, tensor<4xi64>) -> tensor<2x2x16x6xf32>
  %4 = nn.matmul %q, %3 : (tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>) -> tensor<2x2x6x6xf32>
  %5 = nn.softmax %4 {axis = -1 : i64} : (tensor<2x2x6x6xf32>) -> tensor<2x2x6x6xf32>
  %6 = nn.matmul %5, %v : (tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>) -> tensor<2x2x6x16xf32>
  func.return %6 : tensor<2x2x6x16xf32>
}
