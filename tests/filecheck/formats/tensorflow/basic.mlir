// RUN: graph-opt %S/inputs/identity_control.pbtxt | filecheck %s
// RUN: graph-opt %S/inputs/consts.pbtxt | filecheck %s --check-prefix=CONST

/// Nodes listed before their producers are imported producers first; control
/// inputs (^init, a NoOp) order but add no operands; `pair:1` is IdentityN's second output.
// CHECK-LABEL: func.func @main(%a: tensor<2x3xf32> {nn.name = "a"}, %b: tensor<2x3xf32> {nn.name = "b"}) -> (tensor<2x3xf32> {nn.name = "out"})
// CHECK:         %[[C0:.*]] = nn.identity %a
// CHECK:         %[[C1:.*]] = nn.stop_gradient %[[C0]]
// CHECK:         %[[C2:.*]] = nn.identity %[[C1]]
// CHECK:         %pair = nn.identity %a
// CHECK:         %[[P1:.*]] = nn.identity %b
// CHECK:         %out = nn.sub %[[P1]], %[[C2]]
// CHECK-NOT:     NoOp
// CHECK:         func.return %out

/// Each Const encoding: raw bytes, typed fields, a splat, a partial list whose
/// last value repeats, half/bfloat16 bit patterns, and no values (zeros).
// CONST-LABEL: func.func @main()
// CONST:         nn.constant dense<{{\[\[}}-1.24659312, 0.861723065, 0.493932068], [0.873619139, 1.87900829, 1.48444545]]> : tensor<2x3xf32>
// CONST:         nn.constant dense<1.500000e+00> : tensor<2x3xf32>
// CONST:         nn.constant dense<[1, 2, 3, 3, 3]> : tensor<5xi32>
// CONST:         nn.constant dense<{{.*}}> : tensor<3xf64>
// CONST:         nn.constant dense<[5, -6, 1099511627776]> : tensor<3xi64>
// CONST:         nn.constant dense<[true, false, true]> : tensor<3xi1>
// CONST:         nn.constant dense<{{.*}}> : tensor<4xf16>
// CONST:         nn.constant dense<{{.*}}> : tensor<4xbf16>
// CONST:         nn.constant dense<0.000000e+00> : tensor<2x2xf32>
