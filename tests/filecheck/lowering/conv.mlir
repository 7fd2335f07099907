// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// NCHW data is transposed to NHWC around tosa.conv2d; the constant OIHW filter
/// is permuted to OHWI at compile time; a missing bias becomes zeros; ONNX pads
/// [top, left, bottom, right] become TOSA's [top, bottom, left, right].
// CHECK-LABEL: func.func @conv_nchw
func.func @conv_nchw(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x7xf32> {
  // CHECK: %[[X:.*]] = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  // CHECK: %[[W:.*]] = "tosa.const"() <{values = dense<{{.*}}> : tensor<4x3x2x3xf32>}>
  // CHECK: %[[B:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<4xf32>}>
  // CHECK: %[[XZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}>
  // CHECK: %[[WZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}>
  // CHECK: %[[Y:.*]] = tosa.conv2d %[[X]], %[[W]], %[[B]], %[[XZP]], %[[WZP]] {pad = array<i64: 1, 1, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, acc_type = f32} {{.*}} -> tensor<1x8x7x4xf32>
  // CHECK: %[[R:.*]] = tosa.transpose %[[Y]] {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x8x7x4xf32>) -> tensor<1x4x8x7xf32>
  // CHECK: func.return %[[R]]
  %w = nn.constant dense<1.0> : tensor<4x3x3x2xf32>
  %y = nn.conv %x, %w {pads = array<i64: 1, 0, 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x2xf32>) -> tensor<1x4x8x7xf32>
  func.return %y : tensor<1x4x8x7xf32>
}

// -----

/// NHWC needs no data transposes; a filter argument (HWIO) is transposed at run time.
// CHECK-LABEL: func.func @conv_nhwc_filter_argument
func.func @conv_nhwc_filter_argument(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>, %b: tensor<4xf32>) -> tensor<1x2x2x4xf32> {
  // CHECK: %[[W:.*]] = tosa.transpose %w {perms = array<i32: 3, 0, 1, 2>} : (tensor<3x3x2x4xf32>) -> tensor<4x3x3x2xf32>
  // CHECK: %[[Y:.*]] = tosa.conv2d %x, %[[W]], %b, {{.*}} {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>
  // CHECK-NOT: tosa.transpose
  // CHECK: func.return %[[Y]]
  %y = nn.conv %x, %w, %b {data_layout = "NHWC", strides = array<i64: 2, 2>} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>, tensor<4xf32>) -> tensor<1x2x2x4xf32>
  func.return %y : tensor<1x2x2x4xf32>
}

// -----

/// TOSA needs (in + pads - window) to divide by the stride: the unused end pad is trimmed.
// CHECK-LABEL: func.func @conv_trims_unused_end_pad
func.func @conv_trims_unused_end_pad(%x: tensor<1x6x6x1xf32>, %w: tensor<3x3x1x1xf32>) -> tensor<1x3x3x1xf32> {
  // CHECK: tosa.conv2d {{.*}} {pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>
  %y = nn.conv %x, %w {data_layout = "NHWC", strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x3x1xf32>
  func.return %y : tensor<1x3x3x1xf32>
}

// -----

/// group == channels with one input channel per group is depthwise: OIHW [C*M, 1, H, W] -> HWCM.
// CHECK-LABEL: func.func @depthwise_nchw
func.func @depthwise_nchw(%x: tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: %[[W:.*]] = "tosa.const"() <{values = dense<{{.*}}> : tensor<3x3x1x4xf32>}>
  // CHECK: %[[HWCM:.*]] = tosa.reshape %[[W]], %{{.*}} : (tensor<3x3x1x4xf32>, !tosa.shape<4>) -> tensor<3x3x2x2xf32>
  // CHECK: tosa.depthwise_conv2d %{{.*}}, %[[HWCM]], {{.*}} -> tensor<1x4x4x4xf32>
  %w = nn.constant dense<1.0> : tensor<4x1x3x3xf32>
  %y = nn.conv %x, %w {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// -----

/// A fused conv is the conv, then its activation (relu6 -> tosa.clamp).
// CHECK-LABEL: func.func @fused_conv_relu6
func.func @fused_conv_relu6(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  // CHECK: %[[Y:.*]] = tosa.conv2d
  // CHECK: %[[A:.*]] = tosa.clamp %[[Y]] {min_val = 0.000000e+00 : f32, max_val = 6.000000e+00 : f32}
  // CHECK: func.return %[[A]]
  %y = nn.fused_conv %x, %w, %b {data_layout = "NHWC", activation = "relu6"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  func.return %y : tensor<1x4x4x3xf32>
}

// -----

/// nn.qconv: i8 data and filter, zero points as i8 operands, i32 accumulator and result.
// CHECK-LABEL: func.func @qconv
func.func @qconv(%x: tensor<1x4x4x2xi8>, %w: tensor<1x1x2x3xi8>) -> tensor<1x4x4x3xi32> {
  // CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<0> : tensor<3xi32>}>
  // CHECK-DAG: %[[XZP:.*]] = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}>
  // CHECK-DAG: %[[WZP:.*]] = "tosa.const"() <{values = dense<2> : tensor<1xi8>}>
  // CHECK: tosa.conv2d %x, %{{.*}}, %[[B]], %[[XZP]], %[[WZP]] {{.*}}acc_type = i32} {{.*}} -> tensor<1x4x4x3xi32>
  %y = nn.qconv %x, %w {data_layout = "NHWC", input_zp = -3 : i64, weight_zp = 2 : i64} : (tensor<1x4x4x2xi8>, tensor<1x1x2x3xi8>) -> tensor<1x4x4x3xi32>
  func.return %y : tensor<1x4x4x3xi32>
}

// -----

/// A grouped conv that is not depthwise: one conv2d per group on a channel slice
/// of the input, filter and bias, concatenated on the channels.
// CHECK-LABEL: func.func @grouped_conv
func.func @grouped_conv(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: %[[X:.*]] = tosa.transpose %x
  // CHECK: %[[X0:.*]] = tosa.slice %[[X]], %{{.*}}, %{{.*}} : (tensor<1x4x4x4xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x4x2xf32>
  // CHECK: %[[W0:.*]] = tosa.slice %{{.*}} -> tensor<2x1x1x2xf32>
  // CHECK: %[[Y0:.*]] = tosa.conv2d %[[X0]], %[[W0]], {{.*}} -> tensor<1x4x4x2xf32>
  // CHECK: %[[Y1:.*]] = tosa.conv2d {{.*}} -> tensor<1x4x4x2xf32>
  // CHECK: tosa.concat %[[Y0]], %[[Y1]] {axis = 3 : i32} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32>
  %y = nn.conv %x, %w {group = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// -----

func.func @negative_conv_3d(%x: tensor<1x2x4x4x4xf32>, %w: tensor<3x2x1x1x1xf32>) -> tensor<1x3x4x4x4xf32> {
  %y = nn.conv %x, %w : (tensor<1x2x4x4x4xf32>, tensor<3x2x1x1x1xf32>) -> tensor<1x3x4x4x4xf32>
  func.return %y : tensor<1x3x4x4x4xf32>
}
// CHECK: lower-to-tosa: cannot lower nn.conv at {{.*}}: only 1-D and 2-D convolutions lower to TOSA

// -----

func.func @negative_integer_conv(%x: tensor<1x2x2x1xi32>, %w: tensor<1x1x1x1xi32>) -> tensor<1x2x2x1xi32> {
  %y = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x2x2x1xi32>, tensor<1x1x1x1xi32>) -> tensor<1x2x2x1xi32>
  func.return %y : tensor<1x2x2x1xi32>
}
// CHECK: cannot lower nn.conv at {{.*}}: integer convolutions lower through nn.qconv

// -----

/// A 1-D conv is a 2-D conv of height 1: data and filter get a unit dim by reshape,
/// the window props a leading 1 (pads [begin, end] become [0, 0, begin, end]).
// CHECK-LABEL: func.func @conv_1d
func.func @conv_1d(%x: tensor<1x4x10xf32>, %w: tensor<6x4x3xf32>) -> tensor<1x6x5xf32> {
  // CHECK: %[[X:.*]] = tosa.reshape %x, %{{.*}} -> tensor<1x4x1x10xf32>
  // CHECK: %[[W:.*]] = tosa.reshape %w, %{{.*}} -> tensor<6x4x1x3xf32>
  // CHECK: tosa.conv2d %{{.*}} {pad = array<i64: 0, 0, 1, 0>, stride = array<i64: 1, 2>, dilation = array<i64: 1, 1>, acc_type = f32} : (tensor<1x1x10x4xf32>, tensor<6x1x3x4xf32>, {{.*}}) -> tensor<1x1x5x6xf32>
  // CHECK: %[[Y:.*]] = tosa.reshape %{{.*}} : (tensor<1x6x1x5xf32>, !tosa.shape<3>) -> tensor<1x6x5xf32>
  // CHECK: func.return %[[Y]]
  %c = nn.conv %x, %w {pads = array<i64: 1, 0>, strides = array<i64: 2>} : (tensor<1x4x10xf32>, tensor<6x4x3xf32>) -> tensor<1x6x5xf32>
  func.return %c : tensor<1x6x5xf32>
}

// -----

/// conv_transpose: the IOHW filter becomes OHWI at compile time; ONNX's begin pads
/// crop as a negative out_pad, the end ones are what the result size leaves.
// CHECK-LABEL: func.func @conv_transpose
func.func @conv_transpose(%x: tensor<1x3x4x5xf32>) -> tensor<1x4x8x11xf32> {
  // CHECK: %[[X:.*]] = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>}
  // CHECK: %[[W:.*]] = "tosa.const"() {{.*}} -> tensor<4x3x3x3xf32>
  // CHECK: %[[Y:.*]] = tosa.transpose_conv2d %[[X]], %[[W]], %{{.*}}, %{{.*}}, %{{.*}} {out_pad = array<i64: -1, 0, 0, 0>, stride = array<i64: 2, 2>, acc_type = f32} : (tensor<1x4x5x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x11x4xf32>
  // CHECK: tosa.transpose %[[Y]] {perms = array<i32: 0, 3, 1, 2>}
  %w = nn.constant dense<0.5> : tensor<3x4x3x3xf32>
  %p = nn.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x3x4x5xf32>, tensor<3x4x3x3xf32>) -> tensor<1x4x8x11xf32>
  func.return %p : tensor<1x4x8x11xf32>
}

// -----

/// A grouped transposed conv: one transpose_conv2d per group on a channel
/// slice of the input, of the OHWI filter's input channels and of the bias,
/// concatenated on the channels.
// CHECK-LABEL: func.func @grouped_conv_transpose
func.func @grouped_conv_transpose(%x: tensor<1x4x4x4xf32>, %w: tensor<4x1x2x2xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: %[[X:.*]] = tosa.transpose %x
  // CHECK: %[[W:.*]] = tosa.transpose %w {perms = array<i32: 1, 2, 3, 0>} : (tensor<4x1x2x2xf32>) -> tensor<1x2x2x4xf32>
  // CHECK: %[[X0:.*]] = tosa.slice %[[X]], {{.*}} -> tensor<1x4x4x2xf32>
  // CHECK: %[[W0:.*]] = tosa.slice %[[W]], {{.*}} -> tensor<1x2x2x2xf32>
  // CHECK: %[[B0:.*]] = tosa.slice {{.*}} -> tensor<1xf32>
  // CHECK: %[[Y0:.*]] = tosa.transpose_conv2d %[[X0]], %[[W0]], %[[B0]], {{.*}} -> tensor<1x8x8x1xf32>
  // CHECK: %[[Y1:.*]] = tosa.transpose_conv2d {{.*}} -> tensor<1x8x8x1xf32>
  // CHECK: tosa.concat %[[Y0]], %[[Y1]] {axis = 3 : i32} : (tensor<1x8x8x1xf32>, tensor<1x8x8x1xf32>) -> tensor<1x8x8x2xf32>
  %y = nn.conv_transpose %x, %w {group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>, tensor<4x1x2x2xf32>) -> tensor<1x2x8x8xf32>
  func.return %y : tensor<1x2x8x8xf32>
}
