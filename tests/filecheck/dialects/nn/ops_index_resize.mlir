// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

// CHECK-LABEL: func.func @tile
func.func @tile(%x: tensor<2x3xf32>, %r: tensor<2xi64>) -> tensor<4x9xf32> {
  %repeats = nn.constant dense<[2, 3]> : tensor<2xi64>
  // CHECK: nn.tile %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x9xf32>
  %0 = nn.tile %x, %repeats : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x9xf32>
  /// Repeats computed at run time: dims unknown, rank known.
  // CHECK: nn.tile %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %1 = nn.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  func.return %0 : tensor<4x9xf32>
}

// CHECK-LABEL: func.func @range
func.func @range(%n: tensor<i32>) -> tensor<4xf32> {
  %start = nn.constant dense<5.0> : tensor<f32>
  %limit = nn.constant dense<-1.0> : tensor<f32>
  %delta = nn.constant dense<-1.5> : tensor<f32>
  // CHECK: nn.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  %0 = nn.range %start, %limit, %delta : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  /// ONNX's running sum
  // CHECK: nn.range %{{.*}}, %{{.*}}, %{{.*}} {accumulate} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  %sum = nn.range %start, %limit, %delta {accumulate} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  // CHECK: nn.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  %1 = nn.range %zero, %n, %one : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  func.return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @one_hot_top_k
func.func @one_hot_top_k(%i: tensor<2x5xi32>, %x: tensor<3x6xf32>) -> tensor<3x2x5xf32> {
  %values = nn.constant dense<[0.0, 1.0]> : tensor<2xf32>
  // CHECK: nn.one_hot %{{.*}}, %{{.*}} {depth = 3 : i64, axis = 0 : i64} : (tensor<2x5xi32>, tensor<2xf32>) -> tensor<3x2x5xf32>
  %0 = nn.one_hot %i, %values {depth = 3 : i64, axis = 0 : i64} : (tensor<2x5xi32>, tensor<2xf32>) -> tensor<3x2x5xf32>
  // CHECK: nn.one_hot %{{.*}}, %{{.*}} {depth = 4 : i64, wrap_negative = 1 : i64} : (tensor<2x5xi32>, tensor<2xf32>) -> tensor<2x5x4xf32>
  %1 = nn.one_hot %i, %values {depth = 4 : i64, wrap_negative = 1 : i64} : (tensor<2x5xi32>, tensor<2xf32>) -> tensor<2x5x4xf32>
  // CHECK: nn.top_k %{{.*}} {k = 2 : i64, axis = 0 : i64, largest = 0 : i64} : (tensor<3x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xi64>)
  %2, %3 = nn.top_k %x {k = 2 : i64, axis = 0 : i64, largest = 0 : i64} : (tensor<3x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xi64>)
  func.return %0 : tensor<3x2x5xf32>
}

// CHECK-LABEL: func.func @resize
func.func @resize(%x: tensor<?x4x5x2xf32>) -> tensor<?x7x9x2xf32> {
  // CHECK: nn.resize %{{.*}} {sizes = array<i64: -1, 7, 9, -1>, mode = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<?x4x5x2xf32>) -> tensor<?x7x9x2xf32>
  %0 = nn.resize %x {sizes = array<i64: -1, 7, 9, -1>, mode = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<?x4x5x2xf32>) -> tensor<?x7x9x2xf32>
  // CHECK: nn.resize %{{.*}} {sizes = array<i64: 1, 2, 3, 2>, nearest_mode = "floor"} : (tensor<?x4x5x2xf32>) -> tensor<1x2x3x2xf32>
  %1 = nn.resize %x {sizes = array<i64: 1, 2, 3, 2>, nearest_mode = "floor"} : (tensor<?x4x5x2xf32>) -> tensor<1x2x3x2xf32>
  func.return %0 : tensor<?x7x9x2xf32>
}

// CHECK-LABEL: func.func @gather_nd
func.func @gather_nd(%x: tensor<2x4x3xf32>, %i: tensor<2x5x1xi32>) -> tensor<2x5x3xf32> {
  // CHECK: nn.gather_nd %{{.*}}, %{{.*}} {batch_dims = 1 : i64} : (tensor<2x4x3xf32>, tensor<2x5x1xi32>) -> tensor<2x5x3xf32>
  %0 = nn.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x4x3xf32>, tensor<2x5x1xi32>) -> tensor<2x5x3xf32>
  func.return %0 : tensor<2x5x3xf32>
}

// CHECK-LABEL: func.func @gather_elements
func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<2x5xi64>) -> tensor<2x5xf32> {
  /// The output has the indices' shape; off the axis they may be smaller than data.
  // CHECK: nn.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<3x4xf32>, tensor<2x5xi64>) -> tensor<2x5xf32>
  %0 = nn.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<2x5xi64>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}

// CHECK-LABEL: func.func @non_max_suppression
func.func @non_max_suppression(%b: tensor<2x30x4xf32>, %s: tensor<2x3x30xf32>) -> tensor<?x3xi64> {
  /// The row count depends on the data.
  // CHECK: nn.non_max_suppression %{{.*}}, %{{.*}} {max_output_boxes_per_class = 5 : i64, iou_threshold = 5.000000e-01 : f32, score_threshold = 2.000000e-01 : f32} : (tensor<2x30x4xf32>, tensor<2x3x30xf32>) -> tensor<?x3xi64>
  %0 = nn.non_max_suppression %b, %s {max_output_boxes_per_class = 5 : i64, iou_threshold = 0.5 : f32, score_threshold = 0.2 : f32} : (tensor<2x30x4xf32>, tensor<2x3x30xf32>) -> tensor<?x3xi64>
  func.return %0 : tensor<?x3xi64>
}
