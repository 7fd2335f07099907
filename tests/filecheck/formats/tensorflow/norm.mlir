// RUN: graph-opt %S/inputs/norm.pbtxt | filecheck %s

/// Conv2D (SAME, stride 2) + FusedBatchNormV3 (is_training false) + Relu6, NHWC.
// CHECK-LABEL: func.func @main(%input: tensor<1x7x7x3xf32> {nn.name = "input"}) -> (tensor<1x4x4x4xf32> {nn.name = "relu6"})
// CHECK:         %conv = nn.conv %input, %conv_weights {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, data_layout = "NHWC", auto_pad = "SAME_UPPER"} : (tensor<1x7x7x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK:         %bn = nn.batch_norm %conv, %bn_scale, %bn_offset, %bn_mean, %bn_var {epsilon = 1.000000e-03 : f32, data_layout = "NHWC"}
// CHECK:         %relu6 = nn.clip %bn {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32}
// CHECK:         func.return %relu6
