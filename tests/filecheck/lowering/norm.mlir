// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// batch_norm: (x - mean) * (scale * rsqrt(var + eps)) + bias, parameters reshaped along the channel axis.
// CHECK-LABEL: func.func @batch_norm_nchw
func.func @batch_norm_nchw(%x: tensor<1x2x3x3xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  // CHECK-DAG: %[[S:.*]] = tosa.reshape %s, %{{.*}} -> tensor<1x2x1x1xf32>
  // CHECK-DAG: %[[B:.*]] = tosa.reshape %b, %{{.*}} -> tensor<1x2x1x1xf32>
  // CHECK-DAG: %[[M:.*]] = tosa.reshape %m, %{{.*}} -> tensor<1x2x1x1xf32>
  // CHECK-DAG: %[[V:.*]] = tosa.reshape %v, %{{.*}} -> tensor<1x2x1x1xf32>
  // CHECK: %[[VE:.*]] = tosa.add %[[V]]
  // CHECK: %[[R:.*]] = tosa.rsqrt %[[VE]]
  // CHECK: %[[F:.*]] = tosa.mul %[[S]], %[[R]]
  // CHECK: %[[C:.*]] = tosa.sub %x, %[[M]]
  // CHECK: %[[CF:.*]] = tosa.mul %[[C]], %[[F]]
  // CHECK: %[[Y:.*]] = tosa.add %[[CF]], %[[B]]
  // CHECK: func.return %[[Y]]
  %y = nn.batch_norm %x, %s, %b, %m, %v : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

/// NHWC: the parameters broadcast along the last axis.
// CHECK-LABEL: func.func @batch_norm_nhwc
func.func @batch_norm_nhwc(%x: tensor<1x3x3x2xf32>, %s: tensor<2xf32>) -> tensor<1x3x3x2xf32> {
  // CHECK: tosa.reshape %s, %{{.*}} -> tensor<1x1x1x2xf32>
  %y = nn.batch_norm %x, %s, %s, %s, %s {data_layout = "NHWC"} : (tensor<1x3x3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  func.return %y : tensor<1x3x3x2xf32>
}

// -----

/// layer_norm: mean and variance by tosa.reduce_sum over the dims from `axis` on.
// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: %[[SUM:.*]] = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK: %[[MEAN:.*]] = tosa.mul %[[SUM]]
  // CHECK: %[[C:.*]] = tosa.sub %x, %[[MEAN]]
  // CHECK: %[[SQ:.*]] = tosa.mul %[[C]], %[[C]]
  // CHECK: tosa.reduce_sum %[[SQ]] {axis = 2 : i32}
  // CHECK: tosa.rsqrt
  // CHECK: %[[Y:.*]] = tosa.add
  // CHECK: func.return %[[Y]]
  %y = nn.layer_norm %x, %s, %b : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

func.func @negative_integer_batch_norm(%x: tensor<1x2xi32>, %p: tensor<2xi32>) -> tensor<1x2xi32> {
  %y = nn.batch_norm %x, %p, %p, %p, %p : (tensor<1x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<1x2xi32>
  func.return %y : tensor<1x2xi32>
}
// CHECK: cannot lower nn.batch_norm at {{.*}}: integer batch_norm does not lower to TOSA

// -----

/// nn.attention is written out as nn ops first, then lowered: kᵀ, a batched
/// matmul, the scale, the mask, softmax (reduce_max, exp, reduce_sum), matmul.
// CHECK-LABEL: func.func @attention_mask
func.func @attention_mask(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>, %m: tensor<1x1x1x5xf32>) -> tensor<1x2x3x4xf32> {
  // CHECK: tosa.transpose %k {perms = array<i32: 0, 1, 3, 2>}
  // CHECK: tosa.matmul
  // CHECK: tosa.mul
  // CHECK: tosa.add
  // CHECK: tosa.reduce_max
  // CHECK: tosa.exp
  // CHECK: tosa.reduce_sum
  // CHECK: tosa.matmul
  // CHECK-NOT: nn.
  %0 = nn.attention %q, %k, %v, %m {scale = 0.5 : f32} : (tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<1x1x1x5xf32>) -> tensor<1x2x3x4xf32>
  func.return %0 : tensor<1x2x3x4xf32>
}
