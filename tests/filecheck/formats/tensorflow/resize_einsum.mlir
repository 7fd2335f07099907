// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_resizes.pbtxt | filecheck %s
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_einsum.pb | filecheck %s --check-prefix=EINSUM
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_placeholder_default.pbtxt | filecheck %s --check-prefix=DEFAULT
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_placeholder_default.pbtxt --input-shape scale=3 | filecheck %s --check-prefix=FED

/// TensorFlow's align_corners / half_pixel_centers as ONNX Resize's modes.
// CHECK-LABEL: func.func @main
// CHECK: %ResizeBilinear = nn.resize %x {sizes = array<i64: -1, 7, 9, -1>, coordinate_transformation_mode = "asymmetric", mode = "linear"}
// CHECK: %ResizeNearestNeighbor = nn.resize %x {sizes = array<i64: -1, 7, 9, -1>, coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor"}
// CHECK: %ResizeBilinear_1 = nn.resize %x {{{.*}}coordinate_transformation_mode = "align_corners", mode = "linear"}
// CHECK: %ResizeNearestNeighbor_1 = nn.resize %x {{{.*}}coordinate_transformation_mode = "align_corners", mode = "nearest", nearest_mode = "round_prefer_ceil"}
// CHECK: %ResizeBilinear_2 = nn.resize %x {{{.*}}coordinate_transformation_mode = "half_pixel", mode = "linear"}
// CHECK: %ResizeNearestNeighbor_2 = nn.resize %x {{{.*}}coordinate_transformation_mode = "half_pixel", mode = "nearest", nearest_mode = "round_prefer_ceil"}

/// Matmul-like equations: one nn.matmul, transposes and reshapes only where needed.
// EINSUM-LABEL: func.func @main
// EINSUM: %einsum_Einsum = nn.matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// EINSUM: %einsum_1_Einsum = nn.matmul %a, %Const : (tensor<2x3x4xf32>, tensor<4x6xf32>) -> tensor<2x3x6xf32>
// EINSUM: %[[Q:.*]] = nn.transpose %c {perm = array<i64: 0, 2, 1, 3>}
// EINSUM: %[[K:.*]] = nn.transpose %mul_1 {perm = array<i64: 0, 2, 3, 1>}
// EINSUM: %einsum_4_Einsum = nn.matmul %[[Q]], %[[K]] : (tensor<2x2x3x4xf32>, tensor<2x2x4x3xf32>) -> tensor<2x2x3x3xf32>
// EINSUM: %einsum_6_Einsum = nn.transpose %a {perm = array<i64: 2, 0, 1>}

/// A PlaceholderWithDefault is its default, unless named in --input-shape.
// DEFAULT: func.func @main(%x: tensor<2x3xf32> {nn.name = "x"})
// DEFAULT: %scale = nn.identity %Const
// FED: func.func @main(%x: tensor<2x3xf32> {nn.name = "x"}, %scale: tensor<3xf32> {nn.name = "scale"})
// FED-NOT: nn.identity
