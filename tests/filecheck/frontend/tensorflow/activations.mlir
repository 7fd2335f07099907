// RUN: graph-opt %S/../../../frontend/tensorflow/fixtures/tf_activations.pbtxt | filecheck %s

/// Elu has no nn op: max(x, 0) + (exp(min(x, 0)) - 1).
// CHECK-LABEL: func.func @main(%x: tensor<2x3x5xf32> {nn.name = "x"})
// CHECK:         %[[ZERO:.*]] = nn.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[ONE:.*]] = nn.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[POS:.*]] = nn.max %x, %[[ZERO]]
// CHECK-NEXT:    %[[NEG:.*]] = nn.min %x, %[[ZERO]]
// CHECK-NEXT:    %[[EXP:.*]] = nn.exp %[[NEG]]
// CHECK-NEXT:    %[[EXPM1:.*]] = nn.sub %[[EXP]], %[[ONE]]
// CHECK-NEXT:    %Elu = nn.add %[[POS]], %[[EXPM1]]

/// Softmax normalizes the last axis.
// CHECK:         %Softmax = nn.softmax %mul {axis = -1 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
