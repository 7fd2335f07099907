// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_attr_values.pb | filecheck %s
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_attr_layouts.pb | filecheck %s --check-prefix=NCHW
// RUN: not graph-opt %S/inputs/refused_attrs.pbtxt 2>&1 | filecheck %s --check-prefix=REFUSED
// RUN: graph-opt %S/inputs/refused_attrs.pbtxt --outputs d2s --allow-tf-opaque 2>&1 | filecheck %s --check-prefix=OPAQUE

/// Non-default attribute values TensorFlow wrote (make_attr_fixtures.py).
// CHECK-LABEL: func.func @main(%x: tensor<2x5x4xf32> {nn.name = "x"}
/// GatherV2 batch_dims 1 along axis 1: nn.gather_nd of the indices as [..., 1].
// CHECK:         %[[DEEP:.*]] = nn.unsqueeze %Const {axes = array<i64: -1>}
// CHECK-NEXT:    %GatherV2 = nn.gather_nd %x, %[[DEEP]] {batch_dims = 1 : i64} {{.*}} -> tensor<2x3x4xf32>
/// Along a later axis: that axis moved after the batch dims, the result moved back.
// CHECK:         %[[MOVED:.*]] = nn.transpose %x {perm = array<i64: 0, 2, 1>}
// CHECK:         %[[G:.*]] = nn.gather_nd %[[MOVED]], %{{.*}} {batch_dims = 1 : i64}
// CHECK-NEXT:    %GatherV2_1 = nn.transpose %[[G]] {perm = array<i64: 0, 3, 1, 2>} {{.*}} -> tensor<2x5x5x2xf32>
/// batch_dims -1 counts from the indices' rank.
// CHECK:         %GatherV2_2 = nn.gather_nd %x, %{{.*}} {batch_dims = 2 : i64} {{.*}} -> tensor<2x5x2xf32>
/// Dilations and EXPLICIT padding.
// CHECK:         %Conv2D = nn.conv %image, %{{.*}} {strides = array<i64: 1, 2>, dilations = array<i64: 2, 1>, data_layout = "NHWC", pads = array<i64: 1, 0, 2, 1>}
/// BatchMatMulV3: int8 operands cast to Tout (int32) first.
// CHECK:         %BatchMatMulV3 = nn.matmul {{.*}} : (tensor<2x4x5xi32>, tensor<2x5x4xi32>) -> tensor<2x4x4xi32>
/// incompatible_shape_error=false with shapes that do not broadcast: a constant.
// CHECK:         %Equal = nn.constant dense<false> : tensor<i1>
// CHECK-NEXT:    %NotEqual = nn.constant dense<true> : tensor<i1>

/// Channels-first nodes keep their layout; DepthToSpace as a reshape, transpose, reshape.
// NCHW-LABEL: func.func @main(%x: tensor<1x4x6x5xf32> {nn.name = "x"}
// NCHW:         %FusedBatchNormV3 = nn.batch_norm %x, {{.*}} data_layout = "NCHW"
// NCHW:         %[[SPLIT:.*]] = nn.reshape %x, %{{.*}} -> tensor<1x2x2x1x6x5xf32>
// NCHW-NEXT:    %[[MOVED:.*]] = nn.transpose %[[SPLIT]] {perm = array<i64: 0, 3, 4, 1, 5, 2>}
// NCHW:         %DepthToSpace = nn.reshape %[[MOVED]], %{{.*}} -> tensor<1x1x12x10xf32>

/// negative_: every refused value, with the nodes that have it, in one line.
// REFUSED: error: unsupported attribute values: DepthToSpace data_format=NCHW_VECT_C (node 'd2s' and 1 more), GatherNd bad_indices_policy=IGNORE (node 'gathered'), Cast Truncate=true (node 'rounded')

/// negative_: with --allow-tf-opaque, a node with a refused value stays a TensorFlow op, and it is said.
// OPAQUE:       warning: 1 mapped TensorFlow nodes kept as nn.opaque: DepthToSpace 'd2s' (data_format=NCHW_VECT_C:
// OPAQUE-LABEL: func.func @main
// OPAQUE:         %d2s = nn.opaque %x {op_type = "DepthToSpace", domain = "tf"
