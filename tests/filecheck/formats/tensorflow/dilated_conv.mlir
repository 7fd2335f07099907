// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_dilated_convs.pb --outputs Relu,FusedBatchNormV3_1,FusedBatchNormV3_2 | filecheck %s
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_dilated_convs.pb --outputs Relu,FusedBatchNormV3_1,FusedBatchNormV3_2 --pass=fold-bn | filecheck %s --check-prefix=FOLDED
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_space_batch.pbtxt | filecheck %s --check-prefix=ALONE

/// SpaceToBatchND -> Conv2D (VALID) -> BatchToSpaceND is one dilated conv named
/// after the BatchToSpaceND; SAME's paddings minus the crops are its pads.
// CHECK-LABEL: func.func @main
// CHECK:         %convolution_BatchToSpaceND = nn.conv %x, %{{.*}} {strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>, data_layout = "NHWC", pads = array<i64: 2, 2, 2, 2>}
// CHECK:         %convolution_1_BatchToSpaceND = nn.conv %x, %{{.*}} {strides = array<i64: 1, 1>, dilations = array<i64: 3, 3>, data_layout = "NHWC", auto_pad = "VALID"}
/// The depthwise form too.
// CHECK:         %depthwise_BatchToSpaceND = nn.conv %x, %{{.*}} {{{.*}}dilations = array<i64: 2, 2>{{.*}}group = 3 : i64}
// CHECK-NOT:     nn.transpose
// CHECK-NOT:     nn.pad

/// fold-bn then folds each batch norm into its dilated conv.
// FOLDED-LABEL: func.func @main
// FOLDED-NOT:   nn.batch_norm
// FOLDED:       nn.conv %x, %{{.*}}, %{{.*}} {{{.*}}dilations = array<i64: 2, 2>
// FOLDED-NOT:   nn.batch_norm

/// Not around a conv: pad, reshape, transpose, reshape (BatchToSpaceND: the
/// inverse, then a slice for the crops).
// ALONE-LABEL: func.func @main
// ALONE:         %[[PAD:.*]] = nn.pad %x {pads = array<i64: 0, 1, 0, 0, 0, 0, 0, 0>}
// ALONE:         %[[SPLIT:.*]] = nn.reshape %[[PAD]], %{{.*}} : (tensor<2x6x6x3xf32>, tensor<6xi64>) -> tensor<2x3x2x2x3x3xf32>
// ALONE:         %[[MOVED:.*]] = nn.transpose %[[SPLIT]] {perm = array<i64: 2, 4, 0, 1, 3, 5>}
// ALONE:         %SpaceToBatchND = nn.reshape %[[MOVED]], %{{.*}} -> tensor<12x3x2x3xf32>
// ALONE:         %BatchToSpaceND = nn.slice
