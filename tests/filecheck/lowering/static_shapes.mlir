// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// Shapes that follow from static inputs (an exporter's Shape -> Reshape) are
/// folded before lowering, so a fresh import with static inputs lowers alone.

// CHECK-LABEL: func.func @shape_chain_from_static_input
// CHECK-SAME: -> tensor<4x2xf32>
// CHECK-NOT: nn.
// CHECK: tosa.clamp %{{.*}} : (tensor<4x2xf32>) -> tensor<4x2xf32>
func.func @shape_chain_from_static_input(%x: tensor<4x2xf32>) -> tensor<?x?xf32> {
  %s = nn.shape %x : (tensor<4x2xf32>) -> tensor<2xi64>
  %y = nn.reshape %x, %s : (tensor<4x2xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %z = nn.relu %y : (tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %z : tensor<?x?xf32>
}

// -----

/// A shape query on a static tensor is its value.
// CHECK-LABEL: func.func @shape_query
// CHECK-NEXT: %[[S:.*]] = "tosa.const"() <{values = dense<[4, 2]> : tensor<2xi64>}>
// CHECK-NEXT: func.return %[[S]]
func.func @shape_query(%x: tensor<4x2xf32>) -> tensor<2xi64> {
  %y = nn.shape %x : (tensor<4x2xf32>) -> tensor<2xi64>
  func.return %y : tensor<2xi64>
}

// -----

/// A dynamic input stays dynamic: the error names it and the option fixing it.

func.func @negative_dynamic_input(%x: tensor<?x2xf32> {nn.name = "image"}) -> tensor<?x2xf32> {
  %z = nn.relu %x : (tensor<?x2xf32>) -> tensor<?x2xf32>
  func.return %z : tensor<?x2xf32>
}
// CHECK: lower-to-tosa: cannot lower nn.relu at {{.*}}: needs static tensor shapes, got tensor<?x2xf32>; dynamic inputs (image: tensor<?x2xf32>): give their dims with --input-shape NAME=D0,D1,...
