// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_transpose_concat.pbtxt | filecheck %s
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_splits.pbtxt | filecheck %s --check-prefix=SPLIT
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_gather.pbtxt | filecheck %s --check-prefix=GATHER

/// Unpack: unit splits along the axis, each squeezed.
// CHECK-LABEL: func.func @main(%a: tensor<2x3x4xf32> {nn.name = "a"}, %b: tensor<2x3x4xf32> {nn.name = "b"})
// CHECK:         %[[U0:.*]], %[[U1:.*]], %[[U2:.*]] = nn.split %a {axis = 1 : i64, split = array<i64: 1, 1, 1>}
// CHECK-NEXT:    %unstack = nn.squeeze %[[U0]] {axes = array<i64: 1>} : (tensor<2x1x4xf32>) -> tensor<2x4xf32>
/// Transpose and ConcatV2 take their constant perm and axis as properties.
// CHECK:         %transpose = nn.transpose %a {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK:         %concat = nn.concat %a, %b, %a {axis = -1 : i64} {{.*}} -> tensor<2x3x12xf32>
/// Pack: each input unsqueezed at the axis, then concatenated there.
// CHECK:         %[[PA:.*]] = nn.unsqueeze %a {axes = array<i64: 1>}
// CHECK-NEXT:    %[[PB:.*]] = nn.unsqueeze %b {axes = array<i64: 1>}
// CHECK-NEXT:    %stack = nn.concat %[[PA]], %[[PB]] {axis = 1 : i64} {{.*}} -> tensor<2x2x3x4xf32>
// CHECK:         %stack_1 = nn.concat {{.*}} {axis = -1 : i64} {{.*}} -> tensor<2x3x4x2xf32>

/// Split divides the static dim evenly; SplitV's -1 takes the rest.
// SPLIT-LABEL: func.func @main(%x: tensor<4x6xf32> {nn.name = "x"})
// SPLIT:         nn.split %x {axis = 1 : i64, split = array<i64: 2, 2, 2>}
// SPLIT:         nn.split %x {axis = 0 : i64, split = array<i64: 1, 3>}
// SPLIT:         nn.split %x {axis = -1 : i64, split = array<i64: 2, 1, 3>}

/// GatherV2 with batch_dims 0: the axis becomes a property, the indices stay an operand.
// GATHER-LABEL: func.func @main(%x: tensor<4x5x3xf32> {nn.name = "x"})
// GATHER:         %GatherV2 = nn.gather %x, %GatherV2_indices {axis = 1 : i64} : (tensor<4x5x3xf32>, tensor<4xi32>) -> tensor<4x4x3xf32>
// GATHER:         %GatherV2_1 = nn.gather %x, %GatherV2_1_indices {axis = 0 : i64} : (tensor<4x5x3xf32>, tensor<2x2xi32>) -> tensor<2x2x5x3xf32>
// GATHER:         %GatherV2_2 = nn.gather %x, %GatherV2_2_indices {axis = -1 : i64} : (tensor<4x5x3xf32>, tensor<i32>) -> tensor<4x5xf32>
