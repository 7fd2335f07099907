// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_squeeze_expand.pbtxt | filecheck %s
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_shape_queries.pbtxt | filecheck %s --check-prefix=QUERY
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_shape_queries.pbtxt -p fold-constants | filecheck %s --check-prefix=FOLDED

/// Squeeze without squeeze_dims removes every unit dim; ExpandDims' negative
/// axis counts in the result, as nn.unsqueeze's does.
// CHECK-LABEL: func.func @main(%x: tensor<1x3x1x2xf32> {nn.name = "x"})
// CHECK:         %Squeeze = nn.squeeze %x {axes = array<i64: 2>} : (tensor<1x3x1x2xf32>) -> tensor<1x3x2xf32>
// CHECK-NEXT:    %Squeeze_1 = nn.squeeze %x : (tensor<1x3x1x2xf32>) -> tensor<3x2xf32>
// CHECK:         %ExpandDims = nn.unsqueeze %x {axes = array<i64: -1>} : (tensor<1x3x1x2xf32>) -> tensor<1x3x1x2x1xf32>

/// Shape, Size and Rank are i64 queries cast to their out_type (int32 by
/// default); an int32 shape reaching Reshape or Fill is cast back to i64. The
/// reshape's type reads the dims its computed target takes from static shapes.
// QUERY-LABEL: func.func @main(%x: tensor<2x3x4xf32> {nn.name = "x"}, %y: tensor<4x6xf32> {nn.name = "y"})
// QUERY:         %[[SHAPE:.*]] = nn.shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
// QUERY-NEXT:    %Shape = nn.cast %[[SHAPE]] {to = i32}
// QUERY:         %stack_1 = nn.concat {{.*}} -> tensor<2xi32>
// QUERY-NEXT:    %[[TARGET:.*]] = nn.cast %stack_1 {to = i64}
// QUERY-NEXT:    %Reshape = nn.reshape %x, %[[TARGET]] {allowzero = 1 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
/// ShapeN with out_type int64 needs no cast.
// QUERY:         %ShapeN_1 = nn.shape %y : (tensor<4x6xf32>) -> tensor<2xi64>
// QUERY-NEXT:    %Reshape_1 = nn.reshape %x, %ShapeN_1
// QUERY:         %[[SIZE:.*]] = nn.size %y : (tensor<4x6xf32>) -> tensor<i64>
// QUERY-NEXT:    %Size = nn.cast %[[SIZE]] {to = i32}
// QUERY:         %[[RANK:.*]] = nn.rank %x : (tensor<2x3x4xf32>) -> tensor<i64>
// QUERY-NEXT:    %Rank = nn.cast %[[RANK]] {to = i32}
/// Fill holds its constant value; the dims are computed.
// QUERY:         %Fill = nn.constant_of_shape %{{.*}} {value = dense<5.000000e-01> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<?x?xf32>
// QUERY:         %Cast = nn.cast %mul {to = i32} : (tensor<2x3x4xf32>) -> tensor<2x3x4xi32>

/// On static shapes, fold-constants turns the queries into constant shapes.
// FOLDED-LABEL: func.func @main
// FOLDED-NOT:     nn.shape
// FOLDED:         %[[FLAT:.*]] = nn.constant dense<[2, -1]> : tensor<2xi64>
// FOLDED-NEXT:    %Reshape = nn.reshape %x, %[[FLAT]]
// FOLDED-NEXT:    %ShapeN = nn.constant dense<[4, 6]> : tensor<2xi64>
// FOLDED-NEXT:    %Reshape_1 = nn.reshape %x, %ShapeN
// FOLDED-NEXT:    %[[SIZE:.*]] = nn.constant dense<24> : tensor<1xi64>
// FOLDED-NEXT:    %Reshape_2 = nn.reshape %y, %[[SIZE]]
// FOLDED-NEXT:    %Fill = nn.constant dense<5.000000e-01> : tensor<3x2xf32>
// FOLDED-NOT:     nn.size
// FOLDED-NOT:     nn.rank
