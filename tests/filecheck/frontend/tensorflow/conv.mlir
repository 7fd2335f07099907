// RUN: graph-opt %S/inputs/conv.pbtxt | filecheck %s --check-prefix=NCHW
// RUN: graph-opt %S/inputs/depthwise.pbtxt | filecheck %s --check-prefix=DEPTHWISE

/// Conv2D on NCHW data: the HWIO filter constant is permuted to OIHW, strides
/// are taken from the spatial positions of the NCHW attribute, VALID padding.
// NCHW-LABEL: func.func @main(%input: tensor<1x3x5x6xf32> {nn.name = "input"})
// NCHW:         %[[W:.*]] = nn.constant {{.*}} : tensor<2x3x2x2xf32>
// NCHW:         %conv = nn.conv %input, %[[W]] {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, data_layout = "NCHW", auto_pad = "VALID"} : (tensor<1x3x5x6xf32>, tensor<2x3x2x2xf32>) -> tensor<1x2x2x3xf32>

/// DepthwiseConv2dNative: the [3, 3, 2, 2] filter becomes HWIO [3, 3, 1, 4] with
/// 2 groups; explicit_paddings and dilations keep their spatial entries.
// DEPTHWISE-LABEL: func.func @main(%input: tensor<1x6x5x2xf32> {nn.name = "input"})
// DEPTHWISE:         %[[W:.*]] = nn.constant {{.*}} : tensor<3x3x1x4xf32>
// DEPTHWISE:         %dw = nn.conv %input, %[[W]] {strides = array<i64: 1, 1>, dilations = array<i64: 2, 1>, data_layout = "NHWC", pads = array<i64: 1, 2, 2, 0>, group = 2 : i64} : (tensor<1x6x5x2xf32>, tensor<3x3x1x4xf32>) -> tensor<1x5x5x4xf32>
// DEPTHWISE:         %dw_bias_add = nn.add %dw, %dw_bias
// DEPTHWISE:         %relu = nn.relu %dw_bias_add
