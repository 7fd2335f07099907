// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_conv_transpose.pb | filecheck %s

/// Conv2DBackpropInput is nn.conv_transpose on NHWC data; the forward conv's HWIO
/// filter is used as is (HWOI for the transpose). TensorFlow's padding is that
/// of the forward conv to input_sizes: SAME to 8x6 crops 1 column at the end...
// CHECK-LABEL: func.func @main(%x: tensor<1x4x3x6xf32> {nn.name = "x"})
// CHECK:         %conv2d_transpose = nn.conv_transpose %x, %[[W:.*]] {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, data_layout = "NHWC", pads = array<i64: 0, 0, 1, 1>} : (tensor<1x4x3x6xf32>, tensor<3x3x5x6xf32>) -> tensor<1x8x6x5xf32>
/// ... SAME to 7x5 crops one row and column at each side...
// CHECK:         %conv2d_transpose_1 = nn.conv_transpose %x, %[[W]] {{.*}} pads = array<i64: 1, 1, 1, 1>} {{.*}} -> tensor<1x7x5x5xf32>
/// ... VALID to 13x8 with strides 3x2 leaves a last row and column no input reaches.
// CHECK:         %conv2d_transpose_2 = nn.conv_transpose %x, %[[W]] {strides = array<i64: 3, 2>, {{.*}} pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 1, 1>} {{.*}} -> tensor<1x13x8x5xf32>
// CHECK:         %conv2d_transpose_3 = nn.conv_transpose {{.*}} pads = array<i64: 0, 0, 1, 0>} : (tensor<1x4x3x6xf32>, tensor<2x1x2x6xf32>) -> tensor<1x4x3x2xf32>
