// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_math_compare.pbtxt | filecheck %s --check-prefix=COMPARE
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_math_reductions.pbtxt | filecheck %s --check-prefix=REDUCE

/// Comparisons and logical ops are first-class with i1 results; SelectV2
/// broadcasts; Select (v1) with a vector condition reshapes it to pick rows;
/// Where (1 input) is the transpose of nn.nonzero, its count dynamic.
// COMPARE-LABEL: func.func @main
// COMPARE:         %Greater_1 = nn.greater %a, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xi1>
// COMPARE:         %LessEqual = nn.less_equal %a, %b
// COMPARE:         %NotEqual = nn.not_equal %Round, %{{.*}} : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xi1>
// COMPARE:         %LogicalAnd = nn.logical_and %Greater, %Less : (tensor<2x3x4xi1>, tensor<2x3x4xi1>) -> tensor<2x3x4xi1>
// COMPARE:         %SelectV2 = nn.select %Greater_2, %a, %mul : (tensor<2x3x4xi1>, tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
// COMPARE:         %[[ROWS:.*]] = nn.reshape %Greater_3, %{{.*}} -> tensor<2x1x1xi1>
// COMPARE-NEXT:    %Select_1 = nn.select %[[ROWS]], %a, %mul_1
// COMPARE:         %[[NZ:.*]] = nn.nonzero %Greater_4 : (tensor<2x3x4xi1>) -> tensor<3x?xi64>
// COMPARE-NEXT:    %Where = nn.transpose %[[NZ]] {perm = array<i64: 1, 0>} : (tensor<3x?xi64>) -> tensor<?x3xi64>
// COMPARE-NOT:     nn.opaque

/// ArgMax/ArgMin keep TF's output_type (i64 unless i32) and drop the axis;
/// an empty reduction_indices reduces nothing.
// REDUCE-LABEL: func.func @main
// REDUCE:         %Prod = nn.reduce_prod %x {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<3x4x5xf32>) -> tensor<3x5xf32>
// REDUCE:         %Any = nn.reduce_any %Greater {axes = array<i64: 0, 2>, keepdims = 0 : i64} : (tensor<3x4x5xi1>) -> tensor<4xi1>
// REDUCE:         %Sum = nn.reduce_sum %x {axes = array<i64>, keepdims = 0 : i64, noop_with_empty_axes = 1 : i64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
// REDUCE:         %ArgMax = nn.argmax %x {axis = 1 : i64, keepdims = 0 : i64} : (tensor<3x4x5xf32>) -> tensor<3x5xi64>
// REDUCE:         %ArgMin = nn.argmin %x {axis = -1 : i64, keepdims = 0 : i64, output_type = i32} : (tensor<3x4x5xf32>) -> tensor<3x4xi32>
