// RUN: graph-opt %S/inputs/elementwise.pbtxt | filecheck %s
// RUN: graph-opt %S/inputs/bias_add.pbtxt | filecheck %s --check-prefix=BIAS

// CHECK-LABEL: func.func @main(%x: tensor<2x3xf32> {nn.name = "x"}, %y: tensor<2x3xf32> {nn.name = "y"})
// CHECK:         %add = nn.add %x, %c
// CHECK:         %mul = nn.mul %add, %y
// CHECK:         %div = nn.div %mul, %c
// CHECK:         %max = nn.max %div, %x
// CHECK:         %min = nn.min %max, %y
/// SquaredDifference is (a - b) * (a - b).
// CHECK:         %[[D:.*]] = nn.sub %min, %x
// CHECK:         %sqdiff = nn.mul %[[D]], %[[D]]
/// Rsqrt is the reciprocal of the square root.
// CHECK:         %[[R:.*]] = nn.sqrt %sqdiff
// CHECK:         %rsqrt = nn.reciprocal %[[R]]
// CHECK:         %square = nn.mul %y, %y
// CHECK:         %sigmoid = nn.sigmoid %square
// CHECK:         %tanh = nn.tanh %x
// CHECK:         %leaky = nn.leaky_relu %tanh {alpha = 3.000000e-01 : f32}
/// Reshape's int32 shape becomes i64; TensorFlow's 0 is never a copy: allowzero.
// CHECK:         %[[S:.*]] = nn.constant dense<[3, 2]> : tensor<2xi64>
// CHECK:         %reshape = nn.reshape %total, %[[S]] {allowzero = 1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>

/// BiasAdd NHWC adds the bias as is; NCHW reshapes the constant bias to [C, 1, 1].
// BIAS-LABEL: func.func @main
// BIAS:         %nhwc = nn.add %input, %bias_last : (tensor<2x3x4x3xf32>, tensor<3xf32>) -> tensor<2x3x4x3xf32>
// BIAS:         %[[B:.*]] = nn.constant {{.*}} : tensor<3x1x1xf32>
// BIAS:         %nchw = nn.add %input, %[[B]] : (tensor<2x3x4x3xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x3xf32>
