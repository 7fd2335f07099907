// RUN: graph-opt %s --split-input-file --weights-as-resources=32 | filecheck %s
// RUN: graph-opt %s --split-input-file --weights-as-resources=32 | graph-opt --split-input-file | filecheck %s --check-prefix=READ
// RUN: graph-opt %s --split-input-file -p lower-to-tosa --print-op-generic --weights-as-resources=32 | filecheck %s --check-prefix=TOSA

/// Constants of 32 bytes or more print as dense_resource, their bytes in the
/// resource section (alignment 4 as little-endian bytes, then the data, in hex);
/// read back, they are the same dense elements.
// CHECK-LABEL: func.func @weights
// CHECK: %w = nn.constant dense_resource<[[W:w[0-9]+]]> : tensor<2x4xf32>
// CHECK: %b = nn.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: {-#
// CHECK-NEXT: dialect_resources: {
// CHECK-NEXT: builtin: {
// CHECK-NEXT: [[W]]: "0x040000000000803F000000400000404000008040000000BF000020C0000060C0000090C0"
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: #-}
// READ-LABEL: func.func @weights
// READ: %w = nn.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [-5.000000e-01, -2.500000e+00, -3.500000e+00, -4.500000e+00]]> : tensor<2x4xf32>
// READ-NOT: dense_resource
// TOSA-LABEL: "func.func"() <{sym_name = "weights"
// TOSA: "tosa.const"() <{values = dense_resource<[[W:w[0-9]+]]> : tensor<2x4xf32>}>
// TOSA: dialect_resources
// TOSA: [[W]]: "0x04000000
func.func @weights(%x: tensor<2x4xf32>, %y: tensor<2xf32>) -> (tensor<2x4xf32>, tensor<2xf32>) {
  %w = nn.constant dense<[[1.0, 2.0, 3.0, 4.0], [-0.5, -2.5, -3.5, -4.5]]> : tensor<2x4xf32>
  %b = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = nn.add %x, %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = nn.add %y, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0, %1 : tensor<2x4xf32>, tensor<2xf32>
}

// -----

/// i1 data is one byte per element, alignment 1.
// CHECK-LABEL: func.func @booleans
// CHECK: nn.constant dense_resource<[[M:w[0-9]+]]> : tensor<32xi1>
// CHECK: [[M]]: "0x010000000100000001000000010000000100000001000000010000000100000001000000"
// READ-LABEL: func.func @booleans
// READ: nn.constant dense<[true, false, false, false, true,
// TOSA-LABEL: "func.func"() <{sym_name = "booleans"
func.func @booleans(%x: tensor<32xi1>) -> tensor<32xi1> {
  %m = nn.constant dense<[true, false, false, false, true, false, false, false, true, false, false, false, true, false, false, false, true, false, false, false, true, false, false, false, true, false, false, false, true, false, false, false]> : tensor<32xi1>
  %0 = nn.logical_and %x, %m : (tensor<32xi1>, tensor<32xi1>) -> tensor<32xi1>
  func.return %0 : tensor<32xi1>
}

// -----

/// A splat stays inline at any size: its resource would spell every element.
// CHECK-LABEL: func.func @negative_splat
// CHECK: nn.constant dense<5.000000e-01> : tensor<16x16xf32>
// CHECK-NOT: dense_resource
// CHECK-NOT: dialect_resources
// READ-LABEL: func.func @negative_splat
// TOSA-LABEL: "func.func"() <{sym_name = "negative_splat"
// TOSA-NOT: dense_resource
func.func @negative_splat(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %h = nn.constant dense<0.5> : tensor<16x16xf32>
  %0 = nn.mul %x, %h : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  func.return %0 : tensor<16x16xf32>
}
