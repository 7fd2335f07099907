// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// Ops without a TOSA lowering fail the pass with their name, location and a reason.

func.func @negative_conv_transpose_3d(%x: tensor<1x1x2x2x2xf32>, %w: tensor<1x1x2x2x2xf32>) -> tensor<1x1x3x3x3xf32> {
  %y = nn.conv_transpose %x, %w : (tensor<1x1x2x2x2xf32>, tensor<1x1x2x2x2xf32>) -> tensor<1x1x3x3x3xf32> loc("up")
  func.return %y : tensor<1x1x3x3x3xf32>
}
// CHECK: lower-to-tosa: cannot lower nn.conv_transpose at loc("up"): only 2-D transposed convolutions lower to TOSA

// -----

func.func @negative_opaque(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.opaque %x {op_type = "Hardmax"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: lower-to-tosa: cannot lower nn.opaque (Hardmax) at {{.*}}: a framework operator kept as is has no TOSA form

// -----

func.func @negative_dynamic_shape(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = nn.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %y : tensor<?x4xf32>
}
// CHECK: lower-to-tosa: cannot lower nn.relu at {{.*}}: needs static tensor shapes, got tensor<?x4xf32>; dynamic inputs (input_0: tensor<?x4xf32>): give their dims with --input-shape
