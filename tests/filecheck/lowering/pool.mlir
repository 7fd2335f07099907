// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

// CHECK-LABEL: func.func @max_pool_nchw
func.func @max_pool_nchw(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  // CHECK: %[[X:.*]] = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>}
  // CHECK: %[[Y:.*]] = tosa.max_pool2d %[[X]] {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 1>} : (tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32>
  // CHECK: %[[R:.*]] = tosa.transpose %[[Y]] {perms = array<i32: 0, 3, 1, 2>}
  // CHECK: func.return %[[R]]
  %y = nn.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

/// convert-to-int keeps max pooling on int8; TOSA's max_pool2d takes it as is.
// CHECK-LABEL: func.func @max_pool_int8
func.func @max_pool_int8(%x: tensor<1x4x4x2xi8>) -> tensor<1x2x2x2xi8> {
  // CHECK-NEXT: %[[Y:.*]] = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 0, 1, 0>} : (tensor<1x4x4x2xi8>) -> tensor<1x2x2x2xi8>
  // CHECK-NEXT: func.return %[[Y]]
  %y = nn.max_pool %x {data_layout = "NHWC", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x2xi8>) -> tensor<1x2x2x2xi8>
  func.return %y : tensor<1x2x2x2xi8>
}

// -----

/// ceil_mode: the last window runs past the input; TOSA gets the end pad that makes that size.
// CHECK-LABEL: func.func @avg_pool_ceil_mode
func.func @avg_pool_ceil_mode(%x: tensor<1x5x5x1xf32>) -> tensor<1x3x3x1xf32> {
  // CHECK: %[[ZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}>
  // CHECK: tosa.avg_pool2d %x, %[[ZP]], %[[ZP]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 1, 0, 1>, acc_type = f32}
  %y = nn.avg_pool %x {data_layout = "NHWC", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64} : (tensor<1x5x5x1xf32>) -> tensor<1x3x3x1xf32>
  func.return %y : tensor<1x3x3x1xf32>
}

// -----

/// TOSA's avg_pool2d leaves padding out of the count; count_include_pad pads with zeros first.
// CHECK-LABEL: func.func @avg_pool_count_include_pad
func.func @avg_pool_count_include_pad(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32> {
  // CHECK: %[[P:.*]] = tosa.pad %x, %{{.*}}, %{{.*}} : (tensor<1x4x4x1xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<1x6x6x1xf32>
  // CHECK: tosa.avg_pool2d %[[P]], {{.*}} pad = array<i64: 0, 0, 0, 0>
  %y = nn.avg_pool %x {data_layout = "NHWC", kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64} : (tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  func.return %y : tensor<1x4x4x1xf32>
}

// -----

// CHECK-LABEL: func.func @global_avg_pool
func.func @global_avg_pool(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x1x1xf32> {
  // CHECK: tosa.avg_pool2d {{.*}} {kernel = array<i64: 4, 5>, stride = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, acc_type = f32} : (tensor<1x4x5x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x3xf32>
  %y = nn.global_avg_pool %x : (tensor<1x3x4x5xf32>) -> tensor<1x3x1x1xf32>
  func.return %y : tensor<1x3x1x1xf32>
}

// -----

func.func @negative_dilated_max_pool(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x1x1xf32> {
  %y = nn.max_pool %x {kernel_shape = array<i64: 3, 3>, dilations = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x1x1xf32>
  func.return %y : tensor<1x1x1x1xf32>
}
// CHECK: cannot lower nn.max_pool at {{.*}}: TOSA pools have no dilation

// -----

func.func @negative_pool_1d(%x: tensor<1x1x6xf32>) -> tensor<1x1x3xf32> {
  %y = nn.avg_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 2>} : (tensor<1x1x6xf32>) -> tensor<1x1x3xf32>
  func.return %y : tensor<1x1x3xf32>
}
// CHECK: cannot lower nn.avg_pool at {{.*}}: only 2-D float pooling lowers to TOSA

// -----

func.func @negative_global_pool_1d(%x: tensor<1x1x6xf32>) -> tensor<1x1x1xf32> {
  %y = nn.global_avg_pool %x : (tensor<1x1x6xf32>) -> tensor<1x1x1xf32>
  func.return %y : tensor<1x1x1xf32>
}
// CHECK: cannot lower nn.global_avg_pool at {{.*}}: only 2-D float pooling lowers to TOSA
