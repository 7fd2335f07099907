// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// A 2-D matmul is a batch-1 tosa.matmul between reshapes.
// CHECK-LABEL: func.func @matmul_2d
func.func @matmul_2d(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  // CHECK: %[[A:.*]] = tosa.reshape %a, %{{.*}} : (tensor<3x4xf32>, !tosa.shape<3>) -> tensor<1x3x4xf32>
  // CHECK: %[[B:.*]] = tosa.reshape %b, %{{.*}} : (tensor<4x5xf32>, !tosa.shape<3>) -> tensor<1x4x5xf32>
  // CHECK: %[[M:.*]] = tosa.matmul %[[A]], %[[B]], %{{.*}}, %{{.*}} : (tensor<1x3x4xf32>, tensor<1x4x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x5xf32>
  // CHECK: %[[Y:.*]] = tosa.reshape %[[M]], %{{.*}} -> tensor<3x5xf32>
  // CHECK: func.return %[[Y]]
  %y = nn.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}

// -----

/// A batched lhs times a plain matrix folds the batch into the rows.
// CHECK-LABEL: func.func @matmul_batch_into_rows
func.func @matmul_batch_into_rows(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  // CHECK: tosa.matmul {{.*}} -> tensor<1x6x5xf32>
  %y = nn.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  func.return %y : tensor<2x3x5xf32>
}

// -----

/// Batch dims that broadcast are tiled to the common batch.
// CHECK-LABEL: func.func @matmul_broadcast_batch
func.func @matmul_broadcast_batch(%a: tensor<2x1x3x4xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x3x3x5xf32> {
  // CHECK: tosa.tile %a, %{{.*}} : (tensor<2x1x3x4xf32>, !tosa.shape<4>) -> tensor<2x3x3x4xf32>
  // CHECK: tosa.tile %{{.*}} : (tensor<1x3x4x5xf32>, !tosa.shape<4>) -> tensor<2x3x4x5xf32>
  // CHECK: tosa.matmul {{.*}} -> tensor<6x3x5xf32>
  %y = nn.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x3x5xf32>
  func.return %y : tensor<2x3x3x5xf32>
}

// -----

/// gemm: transposes, alpha and beta as multiplies, c broadcast by tosa.add.
// CHECK-LABEL: func.func @gemm
func.func @gemm(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>, %c: tensor<5xf32>) -> tensor<3x5xf32> {
  // CHECK: %[[AT:.*]] = tosa.transpose %a {perms = array<i32: 1, 0>}
  // CHECK: tosa.matmul
  // CHECK: %[[AB:.*]] = tosa.mul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3x5xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<3x5xf32>
  // CHECK: %[[C:.*]] = tosa.reshape %c, %{{.*}} -> tensor<1x5xf32>
  // CHECK: %[[Y:.*]] = tosa.add %[[AB]], %[[C]] : (tensor<3x5xf32>, tensor<1x5xf32>) -> tensor<3x5xf32>
  // CHECK: func.return %[[Y]]
  %y = nn.gemm %a, %b, %c {trans_a = 1 : i64, alpha = 2.0 : f32} : (tensor<4x3xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @fused_matmul_bias_tanh
func.func @fused_matmul_bias_tanh(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %bias: tensor<5xf32>) -> tensor<3x5xf32> {
  // CHECK: tosa.matmul
  // CHECK: %[[S:.*]] = tosa.add
  // CHECK: %[[T:.*]] = tosa.tanh %[[S]]
  // CHECK: func.return %[[T]]
  %y = nn.fused_matmul %a, %b, %bias {activation = "tanh"} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}

// -----

/// nn.qmatmul: i8 operands with their zero points as i8 operands, i32 result.
// CHECK-LABEL: func.func @qmatmul
func.func @qmatmul(%a: tensor<1x3x4xi8>, %b: tensor<1x4x5xi8>) -> tensor<1x3x5xi32> {
  // CHECK-DAG: %[[AZP:.*]] = "tosa.const"() <{values = dense<5> : tensor<1xi8>}>
  // CHECK-DAG: %[[BZP:.*]] = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}>
  // CHECK: tosa.matmul %a, %b, %[[AZP]], %[[BZP]] : (tensor<1x3x4xi8>, tensor<1x4x5xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x5xi32>
  %y = nn.qmatmul %a, %b {a_zp = 5 : i64, b_zp = -1 : i64} : (tensor<1x3x4xi8>, tensor<1x4x5xi8>) -> tensor<1x3x5xi32>
  func.return %y : tensor<1x3x5xi32>
}

// -----

func.func @negative_integer_matmul(%a: tensor<3x4xi32>, %b: tensor<4x5xi32>) -> tensor<3x5xi32> {
  %y = nn.matmul %a, %b : (tensor<3x4xi32>, tensor<4x5xi32>) -> tensor<3x5xi32>
  func.return %y : tensor<3x5xi32>
}
// CHECK: cannot lower nn.matmul at {{.*}}: integer matmul lowers through nn.qmatmul

// -----

func.func @negative_integer_gemm(%a: tensor<3x4xi32>, %b: tensor<4x5xi32>) -> tensor<3x5xi32> {
  %y = nn.gemm %a, %b : (tensor<3x4xi32>, tensor<4x5xi32>) -> tensor<3x5xi32>
  func.return %y : tensor<3x5xi32>
}
// CHECK: cannot lower nn.gemm at {{.*}}: integer gemm lowers through nn.qmatmul
