// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// nn.qconv_transpose: int8 tosa.transpose_conv2d (TOSA 1.0) with the zero
/// points as i8 operands, the i32 bias, an i32 accumulator and result; the
/// IOHW filter becomes OHWI at compile time and the pads a negative out_pad,
/// as for the float op.
// CHECK-LABEL: func.func @qconv_transpose
func.func @qconv_transpose(%x: tensor<1x3x4x5xi8>, %b: tensor<4xi32>) -> tensor<1x4x8x11xi32> {
  // CHECK-DAG: %[[X:.*]] = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>}
  // CHECK-DAG: %[[W:.*]] = "tosa.const"() {{.*}} -> tensor<4x3x3x3xi8>
  // CHECK-DAG: %[[XZP:.*]] = "tosa.const"() <{values = dense<-7> : tensor<1xi8>}>
  // CHECK-DAG: %[[WZP:.*]] = "tosa.const"() <{values = dense<1> : tensor<1xi8>}>
  // CHECK: %[[Y:.*]] = tosa.transpose_conv2d %[[X]], %[[W]], %b, %[[XZP]], %[[WZP]] {out_pad = array<i64: -1, 0, 0, 0>, stride = array<i64: 2, 2>, acc_type = i32} : (tensor<1x4x5x3xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x11x4xi32>
  // CHECK: tosa.transpose %[[Y]] {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x8x11x4xi32>) -> tensor<1x4x8x11xi32>
  %w = nn.constant dense<3> : tensor<3x4x3x3xi8>
  %y = nn.qconv_transpose %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 1>, output_padding = array<i64: 1, 1>, input_zp = -7 : i64, weight_zp = 1 : i64} : (tensor<1x3x4x5xi8>, tensor<3x4x3x3xi8>, tensor<4xi32>) -> tensor<1x4x8x11xi32>
  func.return %y : tensor<1x4x8x11xi32>
}

// -----

/// NHWC with an HWOI filter and no bias: a zero i32 bias, zero points 0; the
/// accumulator's rescale to int8 follows as tosa.rescale.
// CHECK-LABEL: func.func @qconv_transpose_nhwc_rescale
func.func @qconv_transpose_nhwc_rescale(%x: tensor<1x3x3x2xi8>) -> tensor<1x6x6x3xi8> {
  // CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<0> : tensor<3xi32>}>
  // CHECK: %[[Y:.*]] = tosa.transpose_conv2d %x, %{{.*}}, %[[B]], %{{.*}}, %{{.*}} {out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, acc_type = i32} : (tensor<1x3x3x2xi8>, tensor<3x2x2x2xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x6x3xi32>
  // CHECK: tosa.rescale %[[Y]], {{.*}} : (tensor<1x6x6x3xi32>, tensor<3xi32>, tensor<3xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x6x6x3xi8>
  %w = nn.constant dense<-2> : tensor<2x2x3x2xi8>
  %y = nn.qconv_transpose %x, %w {data_layout = "NHWC", strides = array<i64: 2, 2>} : (tensor<1x3x3x2xi8>, tensor<2x2x3x2xi8>) -> tensor<1x6x6x3xi32>
  %r = nn.rescale %y {multiplier = array<i32: 1073741824, 1518500250, 2147483647>, shift = array<i8: 38, 39, 40>, output_zp = -3 : i64, per_channel = 1 : i64} : (tensor<1x6x6x3xi32>) -> tensor<1x6x6x3xi8>
  func.return %r : tensor<1x6x6x3xi8>
}

// -----

/// Grouped: one int8 transpose_conv2d per group, each with the zero points,
/// i32 results concatenated.
// CHECK-LABEL: func.func @grouped_qconv_transpose
func.func @grouped_qconv_transpose(%x: tensor<1x4x4x4xi8>, %w: tensor<4x1x2x2xi8>) -> tensor<1x2x8x8xi32> {
  // CHECK-DAG: %[[XZP:.*]] = "tosa.const"() <{values = dense<5> : tensor<1xi8>}>
  // CHECK: %[[Y0:.*]] = tosa.transpose_conv2d %{{.*}}, %{{.*}}, %{{.*}}, %[[XZP]], %{{.*}} {{{.*}}acc_type = i32} : (tensor<1x4x4x2xi8>, tensor<1x2x2x2xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x1xi32>
  // CHECK: %[[Y1:.*]] = tosa.transpose_conv2d %{{.*}}, %{{.*}}, %{{.*}}, %[[XZP]], %{{.*}} {{.*}} -> tensor<1x8x8x1xi32>
  // CHECK: tosa.concat %[[Y0]], %[[Y1]] {axis = 3 : i32} : (tensor<1x8x8x1xi32>, tensor<1x8x8x1xi32>) -> tensor<1x8x8x2xi32>
  %y = nn.qconv_transpose %x, %w {group = 2 : i64, strides = array<i64: 2, 2>, input_zp = 5 : i64} : (tensor<1x4x4x4xi8>, tensor<4x1x2x2xi8>) -> tensor<1x2x8x8xi32>
  func.return %y : tensor<1x2x8x8xi32>
}

// -----

func.func @negative_integer_conv_transpose(%x: tensor<1x1x2x2xi32>, %w: tensor<1x1x2x2xi32>) -> tensor<1x1x4x4xi32> {
  %y = nn.conv_transpose %x, %w {strides = array<i64: 2, 2>} : (tensor<1x1x2x2xi32>, tensor<1x1x2x2xi32>) -> tensor<1x1x4x4xi32>
  func.return %y : tensor<1x1x4x4xi32>
}
// CHECK: lower-to-tosa: cannot lower nn.conv_transpose at {{.*}}: integer transposed convolutions lower through nn.qconv_transpose
