// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_activations.pbtxt | filecheck %s

/// Elu is a first-class op (alpha 1, its default).
// CHECK-LABEL: func.func @main(%x: tensor<2x3x5xf32> {nn.name = "x"})
// CHECK:         %Elu = nn.elu %x : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>

/// Softmax normalizes the last axis.
// CHECK:         %Softmax = nn.softmax %mul {axis = -1 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
