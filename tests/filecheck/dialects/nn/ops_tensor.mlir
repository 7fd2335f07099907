// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

// CHECK-LABEL: func.func @layout_ops
func.func @layout_ops(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  // CHECK: nn.transpose %{{.*}} {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %0 = nn.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // CHECK: nn.transpose %{{.*}} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %1 = nn.transpose %x : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  // CHECK: nn.flatten %{{.*}} {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %2 = nn.flatten %x {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  func.return %0 : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @unit_dims
func.func @unit_dims(%x: tensor<2x1x3x1xf32>, %d: tensor<?x1xf32>) -> tensor<2x3xf32> {
  // CHECK: nn.squeeze %{{.*}} {axes = array<i64: 1, -1>} : (tensor<2x1x3x1xf32>) -> tensor<2x3xf32>
  %0 = nn.squeeze %x {axes = array<i64: 1, -1>} : (tensor<2x1x3x1xf32>) -> tensor<2x3xf32>
  // CHECK: nn.squeeze %{{.*}} : (tensor<2x1x3x1xf32>) -> tensor<2x3xf32>
  %1 = nn.squeeze %x : (tensor<2x1x3x1xf32>) -> tensor<2x3xf32>
  /// Squeezing every unit dim of a dynamic shape: the result type is declared, not inferred.
  // CHECK: nn.squeeze %{{.*}} : (tensor<?x1xf32>) -> tensor<?xf32>
  %2 = nn.squeeze %d : (tensor<?x1xf32>) -> tensor<?xf32>
  // CHECK: nn.unsqueeze %{{.*}} {axes = array<i64: 0, -1>} : (tensor<2x3xf32>) -> tensor<1x2x3x1xf32>
  %3 = nn.unsqueeze %0 {axes = array<i64: 0, -1>} : (tensor<2x3xf32>) -> tensor<1x2x3x1xf32>
  func.return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @concat_split
func.func @concat_split(%a: tensor<2x3xf32>, %b: tensor<2x?xf32>) -> tensor<2x?xf32> {
  // CHECK: %[[C:.*]] = nn.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>, tensor<2x3xf32>) -> tensor<2x?xf32>
  %0 = nn.concat %a, %b, %a {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>, tensor<2x3xf32>) -> tensor<2x?xf32>
  // CHECK: nn.split %{{.*}} {axis = -1 : i64, split = array<i64: 1, 2, 0>} : (tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x0xf32>)
  %1:3 = nn.split %a {axis = -1 : i64, split = array<i64: 1, 2, 0>} : (tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x0xf32>)
  func.return %0 : tensor<2x?xf32>
}

// CHECK-LABEL: func.func @slice_gather
func.func @slice_gather(%x: tensor<5x6xf32>, %runtime: tensor<1xi64>) -> tensor<2x2xf32> {
  %starts = nn.constant dense<[100, 1]> : tensor<2xi64>
  %ends = nn.constant dense<[-100, 5]> : tensor<2xi64>
  %axes = nn.constant dense<[0, -1]> : tensor<2xi64>
  %steps = nn.constant dense<[-2, 2]> : tensor<2xi64>
  /// Clamped: dim 0 runs 4, 2, 0; dim 1 runs 1, 3.
  // CHECK: nn.slice %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x2xf32>
  %0 = nn.slice %x, %starts, %ends, %axes, %steps : (tensor<5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x2xf32>
  %one = nn.constant dense<1> : tensor<1xi64>
  %zero = nn.constant dense<0> : tensor<1xi64>
  // CHECK: nn.slice {{.*}} -> tensor<?x6xf32>
  %1 = nn.slice %x, %runtime, %runtime, %zero, %one : (tensor<5x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x6xf32>
  %indices = nn.constant dense<[-1, 0]> : tensor<2xi64>
  // CHECK: nn.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %2 = nn.gather %0, %indices {axis = 1 : i64} : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  // CHECK: nn.gather %{{.*}}, %{{.*}} : (tensor<5x6xf32>, tensor<1xi64>) -> tensor<1x6xf32>
  %3 = nn.gather %x, %runtime : (tensor<5x6xf32>, tensor<1xi64>) -> tensor<1x6xf32>
  %4 = nn.constant dense<0.0> : tensor<2x2xf32>
  func.return %4 : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @pad_cast_dropout
func.func @pad_cast_dropout(%x: tensor<2x3xf32>) -> tensor<3x7xf16> {
  // CHECK: nn.pad %{{.*}} {pads = array<i64: 1, 2, 0, 2>, mode = "constant", value = 1.500000e+00 : f32} : (tensor<2x3xf32>) -> tensor<3x7xf32>
  %0 = nn.pad %x {pads = array<i64: 1, 2, 0, 2>, mode = "constant", value = 1.5 : f32} : (tensor<2x3xf32>) -> tensor<3x7xf32>
  // CHECK: nn.pad %{{.*}} {pads = array<i64: 0, 2, -1, 1>, mode = "reflect"} : (tensor<2x3xf32>) -> tensor<1x6xf32>
  %1 = nn.pad %x {pads = array<i64: 0, 2, -1, 1>, mode = "reflect"} : (tensor<2x3xf32>) -> tensor<1x6xf32>
  // CHECK: nn.cast %{{.*}} {to = f16} : (tensor<3x7xf32>) -> tensor<3x7xf16>
  %2 = nn.cast %0 {to = f16} : (tensor<3x7xf32>) -> tensor<3x7xf16>
  // CHECK: nn.cast %{{.*}} {to = f8E5M2, saturate = 0 : i64} : (tensor<3x7xf32>) -> tensor<3x7xf8E5M2>
  %f8 = nn.cast %0 {to = f8E5M2, saturate = 0 : i64} : (tensor<3x7xf32>) -> tensor<3x7xf8E5M2>
  /// TensorFlow's clamping cast to a narrow integer
  // CHECK: nn.cast %{{.*}} {to = i8, clamp_narrow} : (tensor<3x7xf32>) -> tensor<3x7xi8>
  %i8 = nn.cast %0 {to = i8, clamp_narrow} : (tensor<3x7xf32>) -> tensor<3x7xi8>
  // CHECK: nn.dropout %{{.*}} {ratio = 2.000000e-01 : f32} : (tensor<3x7xf16>) -> tensor<3x7xf16>
  %3 = nn.dropout %2 {ratio = 0.2 : f32} : (tensor<3x7xf16>) -> tensor<3x7xf16>
  func.return %3 : tensor<3x7xf16>
}

// CHECK-LABEL: func.func @shape_queries
func.func @shape_queries(%x: tensor<2x?x4xf32>, %s: tensor<3xi64>) -> tensor<i64> {
  // CHECK: nn.shape %{{.*}} : (tensor<2x?x4xf32>) -> tensor<3xi64>
  %0 = nn.shape %x : (tensor<2x?x4xf32>) -> tensor<3xi64>
  // CHECK: nn.shape %{{.*}} {start = -2 : i64, end = 100 : i64} : (tensor<2x?x4xf32>) -> tensor<2xi64>
  %1 = nn.shape %x {start = -2 : i64, end = 100 : i64} : (tensor<2x?x4xf32>) -> tensor<2xi64>
  // CHECK: nn.size %{{.*}} : (tensor<2x?x4xf32>) -> tensor<i64>
  %2 = nn.size %x : (tensor<2x?x4xf32>) -> tensor<i64>
  // CHECK: nn.rank %{{.*}} : (tensor<2x?x4xf32>) -> tensor<i64>
  %3 = nn.rank %x : (tensor<2x?x4xf32>) -> tensor<i64>
  %shape = nn.constant dense<[2, 0, 3]> : tensor<3xi64>
  // CHECK: nn.constant_of_shape %{{.*}} {value = dense<7> : tensor<1xi32>} : (tensor<3xi64>) -> tensor<2x0x3xi32>
  %4 = nn.constant_of_shape %shape {value = dense<7> : tensor<1xi32>} : (tensor<3xi64>) -> tensor<2x0x3xi32>
  // CHECK: nn.constant_of_shape %{{.*}} : (tensor<3xi64>) -> tensor<4x5x6xf32>
  %5 = nn.constant_of_shape %s : (tensor<3xi64>) -> tensor<4x5x6xf32>
  func.return %3 : tensor<i64>
}
