// RUN: graph-opt %s --split-input-file -p 'auto-parallel{replicas=2}' | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'auto-parallel{replicas=2}' 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

/// An inference graph (no optimizer update): the batch of 4 is split in two,
/// each replica runs conv-relu-pool-flatten-gemm on its 2 samples with the
/// shared weights, and the results are concatenated back to 4 rows.
// CHECK-LABEL: func.func @small_cnn
// CHECK-SAME: (%x: tensor<4x3x8x8xf32> {nn.name = "x"}) -> tensor<4x10xf32>
// CHECK: %[[W:.*]] = nn.constant dense<5.000000e-01> : tensor<4x3x3x3xf32>
// CHECK: %[[FC:.*]] = nn.constant dense<1.000000e-02> : tensor<10x64xf32>
// CHECK: %[[X0:.*]], %[[X1:.*]] = nn.split %x {axis = 0 : i64, split = array<i64: 2, 2>}
// CHECK-NEXT: %[[C0:AutoParallel-Replica-0_conv]] = nn.conv %[[X0]], %[[W]], %{{.*}} -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[R0:.*]] = nn.relu %[[C0]] : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[P0:.*]] = nn.max_pool %[[R0]] {{.*}} -> tensor<2x4x4x4xf32>
// CHECK-NEXT: %[[F0:.*]] = nn.flatten %[[P0]] : (tensor<2x4x4x4xf32>) -> tensor<2x64xf32>
// CHECK-NEXT: %[[G0:AutoParallel-Replica-0_gemm]] = nn.gemm %[[F0]], %[[FC]], {{.*}} -> tensor<2x10xf32>
// CHECK-NEXT: %[[C1:AutoParallel-Replica-1_conv]] = nn.conv %[[X1]], %[[W]]
// CHECK-NEXT: nn.relu %[[C1]]
// CHECK-NEXT: nn.max_pool
// CHECK-NEXT: nn.flatten
// CHECK-NEXT: %[[G1:AutoParallel-Replica-1_gemm]] = nn.gemm {{.*}} -> tensor<2x10xf32>
// CHECK-NEXT: %[[OUT:.*]] = nn.concat %[[G0]], %[[G1]] {axis = 0 : i64} : (tensor<2x10xf32>, tensor<2x10xf32>) -> tensor<4x10xf32>
// CHECK-NEXT: func.return %[[OUT]] : tensor<4x10xf32>
func.func @small_cnn(%x: tensor<4x3x8x8xf32> {nn.name = "x"}) -> tensor<4x10xf32> {
  %w = nn.constant dense<0.5> : tensor<4x3x3x3xf32>
  %b = nn.constant dense<0.1> : tensor<4xf32>
  %conv = nn.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<4x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<4x4x8x8xf32>
  %relu = nn.relu %conv : (tensor<4x4x8x8xf32>) -> tensor<4x4x8x8xf32>
  %pool = nn.max_pool %relu {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<4x4x8x8xf32>) -> tensor<4x4x4x4xf32>
  %flat = nn.flatten %pool : (tensor<4x4x4x4xf32>) -> tensor<4x64xf32>
  %fc = nn.constant dense<0.01> : tensor<10x64xf32>
  %fcb = nn.constant dense<0.0> : tensor<10xf32>
  %gemm = nn.gemm %flat, %fc, %fcb {trans_b = 1} : (tensor<4x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  func.return %gemm : tensor<4x10xf32>
}

// -----

/// A reshape whose constant shape names the batch (6) gets a shape naming the
/// slice (3) in each replica; a softmax over the last axis and an add of a
/// bias with leading dim 1 keep samples apart.
// CHECK-LABEL: func.func @reshape_softmax
// CHECK: nn.split %x {axis = 0 : i64, split = array<i64: 3, 3>}
// CHECK: %[[S0:.*]] = nn.constant dense<[3, 4]> : tensor<2xi64>
// CHECK-NEXT: nn.reshape %{{.*}}, %[[S0]] : (tensor<3x2x2xf32>, tensor<2xi64>) -> tensor<3x4xf32>
// CHECK-NEXT: nn.add {{.*}} : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: nn.softmax {{.*}} -> tensor<3x4xf32>
// CHECK: %[[S1:.*]] = nn.constant dense<[3, 4]> : tensor<2xi64>
// CHECK-NEXT: nn.reshape %{{.*}}, %[[S1]]
// CHECK: nn.concat {{.*}} -> tensor<6x4xf32>
func.func @reshape_softmax(%x: tensor<6x2x2xf32>) -> tensor<6x4xf32> {
  %shape = nn.constant dense<[6, 4]> : tensor<2xi64>
  %flat = nn.reshape %x, %shape : (tensor<6x2x2xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %bias = nn.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %add = nn.add %flat, %bias : (tensor<6x4xf32>, tensor<1x4xf32>) -> tensor<6x4xf32>
  %soft = nn.softmax %add {axis = -1 : i64} : (tensor<6x4xf32>) -> tensor<6x4xf32>
  func.return %soft : tensor<6x4xf32>
}

// -----

/// A mean over the batch axis mixes samples: no change, a warning naming it.
// CHECK-LABEL: func.func @negative_reduce_over_batch
// CHECK-NEXT: nn.reduce_mean %x
// CHECK-NEXT: func.return
// WARN: auto-parallel: cannot split the batch of 4: nn.reduce_mean 'mean' works across the batch axis 0
func.func @negative_reduce_over_batch(%x: tensor<4x8xf32>) -> tensor<1x8xf32> {
  %mean = nn.reduce_mean %x {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  func.return %mean : tensor<1x8xf32>
}

// -----

/// A batch of 3 does not split into 2 replicas.
// CHECK-LABEL: func.func @negative_batch_not_divisible
// CHECK-NEXT: nn.relu %x
// CHECK-NEXT: func.return
// WARN: auto-parallel: cannot split the batch: batch 3 is not divisible by 2 replicas
func.func @negative_batch_not_divisible(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %relu = nn.relu %x : (tensor<3x8xf32>) -> tensor<3x8xf32>
  func.return %relu : tensor<3x8xf32>
}

// -----

/// A constant with one row per sample would need splitting too: no change.
// CHECK-LABEL: func.func @negative_batch_sized_constant
// CHECK-NEXT: nn.constant
// CHECK-NEXT: nn.mul %x
// CHECK-NEXT: func.return
// WARN: auto-parallel: cannot split the batch of 4: nn.mul 'scaled' has a batch-sized operand that is not split
func.func @negative_batch_sized_constant(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %per_sample = nn.constant dense<2.0> : tensor<4x8xf32>
  %scaled = nn.mul %x, %per_sample : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %scaled : tensor<4x8xf32>
}

// -----

/// Arguments with different batches (4 and 2): no change.
// CHECK-LABEL: func.func @negative_batches_differ
// CHECK-NEXT: nn.matmul %x, %y
// WARN: auto-parallel: cannot split the batch: arguments differ in dim 0 [2, 4]
func.func @negative_batches_differ(%x: tensor<4x2xf32>, %y: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %mm = nn.matmul %x, %y : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  func.return %mm : tensor<4x3xf32>
}

// -----

/// A skip connection joined along the channels (axis 1) is split; the
/// replicas' concats keep their axis.
// CHECK-LABEL: func.func @concat_channels
// CHECK: %[[X0:.*]], %[[X1:.*]] = nn.split %x
// CHECK-NEXT: %[[R0:.*]] = nn.relu %[[X0]]
// CHECK-NEXT: nn.concat %[[X0]], %[[R0]] {axis = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
// CHECK-NEXT: %[[R1:.*]] = nn.relu %[[X1]]
// CHECK-NEXT: nn.concat %[[X1]], %[[R1]] {axis = 1 : i64}
// CHECK-NEXT: %[[OUT:.*]] = nn.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: func.return %[[OUT]]
func.func @concat_channels(%x: tensor<2x2xf32>) -> tensor<2x4xf32> {
  %relu = nn.relu %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %joined = nn.concat %x, %relu {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x4xf32>
  func.return %joined : tensor<2x4xf32>
}

// -----

/// Joining along the batch axis mixes the replicas' samples: no change.
// CHECK-LABEL: func.func @negative_concat_batch_axis
// CHECK-NEXT: nn.relu %x
// CHECK-NEXT: nn.concat
// CHECK-NEXT: func.return
// WARN: auto-parallel: cannot split the batch of 2: nn.concat 'joined' joins along the batch axis 0
func.func @negative_concat_batch_axis(%x: tensor<2x2xf32>) -> tensor<4x2xf32> {
  %relu = nn.relu %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %joined = nn.concat %x, %relu {axis = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  func.return %joined : tensor<4x2xf32>
}

// -----

/// An op with regions may read batched values inside them: no change.
// CHECK-LABEL: func.func @negative_nested_region
// CHECK: scf.if
// CHECK-NOT: AutoParallel
// WARN: auto-parallel: cannot split the batch: scf.if 'r' has regions
func.func @negative_nested_region(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %true = arith.constant true
  %r = scf.if %true -> (tensor<2x2xf32>) {
    %relu = nn.relu %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
    scf.yield %relu : tensor<2x2xf32>
  } else {
    scf.yield %x : tensor<2x2xf32>
  }
  func.return %r : tensor<2x2xf32>
}
