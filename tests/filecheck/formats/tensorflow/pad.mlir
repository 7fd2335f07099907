// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_pads.pbtxt | filecheck %s

/// The [rank, 2] paddings become [begins..., ends...]; PadV2's scalar fill is the value.
// CHECK-LABEL: func.func @main(%x: tensor<2x3x4xf32> {nn.name = "x"})
// CHECK:         %Pad = nn.pad %x {pads = array<i64: 1, 2, 0, 0, 1, 3>, mode = "constant"} : (tensor<2x3x4xf32>) -> tensor<3x6x7xf32>
// CHECK:         %PadV2 = nn.pad %x {pads = array<i64: 1, 2, 0, 0, 1, 3>, mode = "constant", value = 1.500000e+00 : f32}

/// MirrorPad REFLECT is nn.pad's reflect mode.
// CHECK:         %MirrorPad = nn.pad %x {pads = array<i64: 1, 2, 3, 1, 1, 2>, mode = "reflect"} : (tensor<2x3x4xf32>) -> tensor<4x6x9xf32>

/// MirrorPad SYMMETRIC ([[1, 2], [3, 1], [0, 4]]): per padded axis, the first and
/// last entries sliced out reversed (step -1) and concatenated around the data;
/// axis 2 has nothing before it.
// CHECK:         %[[B0:.*]] = nn.slice %x, {{.*}} -> tensor<1x3x4xf32>
// CHECK:         %[[A0:.*]] = nn.slice %x, {{.*}} -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[P0:.*]] = nn.concat %[[B0]], %x, %[[A0]] {axis = 0 : i64} {{.*}} -> tensor<5x3x4xf32>
// CHECK:         %[[B1:.*]] = nn.slice %[[P0]], {{.*}} -> tensor<5x3x4xf32>
// CHECK:         %[[A1:.*]] = nn.slice %[[P0]], {{.*}} -> tensor<5x1x4xf32>
// CHECK-NEXT:    %[[P1:.*]] = nn.concat %[[B1]], %[[P0]], %[[A1]] {axis = 1 : i64} {{.*}} -> tensor<5x7x4xf32>
// CHECK:         %[[A2:.*]] = nn.slice %[[P1]], {{.*}} -> tensor<5x7x4xf32>
// CHECK-NEXT:    %MirrorPad_1 = nn.concat %[[P1]], %[[A2]] {axis = 2 : i64} {{.*}} -> tensor<5x7x8xf32>
