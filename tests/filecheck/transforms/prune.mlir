// RUN: graph-opt %s --split-input-file -p prune | filecheck %s

/// Identities, stop_gradient and inference dropout forward their input.
// CHECK-LABEL: func.func @forwarding_ops
func.func @forwarding_ops(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %[[R:.*]] = nn.relu %x
  // CHECK-NEXT: func.return %[[R]] : tensor<2x3xf32>
  %0 = nn.identity %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.stop_gradient %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.dropout %1 {ratio = 0.25 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.relu %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.identity %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %4 : tensor<2x3xf32>
}

// -----

/// An identity feeding the return goes; the output keeps its name from res_attrs.
// CHECK-LABEL: func.func @named_output
// CHECK-SAME: -> (tensor<4xf32> {nn.name = "y"})
func.func @named_output(%x: tensor<4xf32>) -> (tensor<4xf32> {nn.name = "y"}) {
  // CHECK-NEXT: %[[R:.*]] = nn.exp %x
  // CHECK-NEXT: func.return %[[R]]
  %0 = nn.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.identity %0 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

/// Chains of unused pure ops (nn and known-pure ONNX) disappear, constants too.
// CHECK-LABEL: func.func @unused_chain
func.func @unused_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: func.return %x
  %c = nn.constant dense<2.0> : tensor<4xf32>
  %0 = nn.mul %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.opaque %0 {op_type = "Floor"} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.exp %1 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// -----

/// An opaque op may have side effects: kept with its operands even if unused.
// CHECK-LABEL: func.func @negative_side_effecting_opaque
func.func @negative_side_effecting_opaque(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[E:.*]] = nn.exp %x
  // CHECK-NEXT: nn.opaque %[[E]] {op_type = "RandomNormalLike"}
  // CHECK-NEXT: nn.opaque %x {op_type = "Floor", domain = "com.example"}
  // CHECK-NEXT: func.return %x
  %0 = nn.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.opaque %0 {op_type = "RandomNormalLike"} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.opaque %x {op_type = "Floor", domain = "com.example"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// -----

/// An identity that refines the type cannot feed the return in its place.
// CHECK-LABEL: func.func @negative_type_refining_identity
func.func @negative_type_refining_identity(%x: tensor<?xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: nn.identity %x
  %0 = nn.identity %x : (tensor<?xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
