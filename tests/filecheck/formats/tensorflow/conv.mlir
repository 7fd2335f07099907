// RUN: graph-opt %S/inputs/conv.pbtxt | filecheck %s --check-prefix=NCHW
// RUN: graph-opt %S/inputs/depthwise.pbtxt | filecheck %s --check-prefix=DEPTHWISE
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_depthwise_blocks.pb --outputs Conv2D_1 | filecheck %s --check-prefix=BLOCKS

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

/// MobileNet blocks written by TensorFlow: SAME depthwise (multiplier 1, 4 groups)
/// + FusedBatchNormV3 + Relu6, a pointwise conv + FusedBatchNormV3, a VALID
/// strided depthwise with multiplier 2, and an EXPLICIT-padded Conv2D.
// BLOCKS-LABEL: func.func @main(%input: tensor<1x8x8x4xf32> {nn.name = "input"}) -> (tensor<1x3x3x3xf32> {nn.name = "Conv2D_1"})
// BLOCKS:         %depthwise = nn.conv %input, %{{.*}} {{{.*}} auto_pad = "SAME_UPPER", group = 4 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x1x4xf32>) -> tensor<1x8x8x4xf32>
// BLOCKS:         %FusedBatchNormV3 = nn.batch_norm %depthwise, {{.*}} {epsilon = 1.000000e-03 : f32, data_layout = "NHWC"}
// BLOCKS-NEXT:    %Relu6 = nn.clip %FusedBatchNormV3 {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32}
// BLOCKS:         %depthwise_1 = nn.conv %{{.*}} {strides = array<i64: 2, 2>, {{.*}} auto_pad = "VALID", group = 6 : i64} : (tensor<1x8x8x6xf32>, tensor<3x3x1x12xf32>) -> tensor<1x3x3x12xf32>
// BLOCKS:         %Conv2D_1 = nn.conv %Relu, %{{.*}} {{{.*}} pads = array<i64: 1, 0, 0, 1>} : (tensor<1x3x3x12xf32>, tensor<2x2x12x3xf32>) -> tensor<1x3x3x3xf32>
