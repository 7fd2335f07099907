// RUN: graph-opt %s --split-input-file -p 'fold-constants{max-size=4}' | filecheck %s

/// Ops on constants are evaluated; their operands go when unused.
// CHECK-LABEL: func.func @fold_chain
func.func @fold_chain(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NEXT: %[[C:.*]] = nn.constant dense<[2.000000e+00, 5.000000e+00, 1.000000e+01]> : tensor<3xf32>
  // CHECK-NEXT: %[[R:.*]] = nn.add %x, %[[C]]
  // CHECK-NEXT: func.return %[[R]]
  %a = nn.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = nn.mul %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %one = nn.constant dense<1.0> : tensor<3xf32>
  %c = nn.add %b, %one : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %r = nn.add %x, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

/// Known-pure ONNX operators (Constant nodes too) are evaluated by onnx's reference implementation.
// CHECK-LABEL: func.func @fold_pure_opaque
func.func @fold_pure_opaque() -> tensor<2xf32> {
  // CHECK-NEXT: %[[C:.*]] = nn.constant dense<[1.000000e+00, -3.000000e+00]> : tensor<2xf32>
  // CHECK-NEXT: func.return %[[C]]
  %a = nn.opaque {op_type = "Constant", attrs = {value = dense<[1.5, -2.5]> : tensor<2xf32>}} : () -> tensor<2xf32>
  %0 = nn.opaque %a {op_type = "Floor"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @negative_non_constant_input
func.func @negative_non_constant_input(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: nn.exp %x
  %0 = nn.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

/// An opaque op that is not known to be pure may have side effects.
// CHECK-LABEL: func.func @negative_side_effecting_opaque
func.func @negative_side_effecting_opaque() -> tensor<2xf32> {
  // CHECK: nn.opaque %{{.*}} {op_type = "RandomNormalLike"}
  %a = nn.constant dense<[1.5, -2.5]> : tensor<2xf32>
  %0 = nn.opaque %a {op_type = "RandomNormalLike"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

/// Any deterministic ONNX operator on constants is evaluated, not only the
/// known-pure list: LRN, y = x / (1 + x^2) here.
// CHECK-LABEL: func.func @fold_opaque_lrn
func.func @fold_opaque_lrn() -> tensor<1x2x1x1xf32> {
  // CHECK-NEXT: %[[C:.*]] = nn.constant dense<{{\[\[\[}}[5.000000e-01]], {{\[\[}}4.000000e-01]]]]> : tensor<1x2x1x1xf32>
  // CHECK-NEXT: func.return %[[C]]
  %a = nn.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %0 = nn.opaque %a {op_type = "LRN", attrs = {size = 1 : i64, alpha = 1.0 : f32, beta = 1.0 : f32, bias = 1.0 : f32}} : (tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  func.return %0 : tensor<1x2x1x1xf32>
}

// -----

/// LpNormalization (graph-opt's override of onnx's kernel) folds too.
// CHECK-LABEL: func.func @fold_opaque_lp_normalization
func.func @fold_opaque_lp_normalization() -> tensor<2xf32> {
  // CHECK-NEXT: %[[C:.*]] = nn.constant dense<[6.000000e-01, 8.000000e-01]> : tensor<2xf32>
  // CHECK-NEXT: func.return %[[C]]
  %a = nn.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %0 = nn.opaque %a {op_type = "LpNormalization", attrs = {axis = 0 : i64, p = 2 : i64}} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

/// A sequence result cannot become a constant: the op stays (and is reported).
// CHECK-LABEL: func.func @negative_opaque_sequence_result
func.func @negative_opaque_sequence_result() -> !nn.sequence<tensor<*xf32>> {
  // CHECK: nn.opaque %{{.*}} {op_type = "SplitToSequence"}
  %a = nn.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %0 = nn.opaque %a {op_type = "SplitToSequence"} : (tensor<2xf32>) -> !nn.sequence<tensor<*xf32>>
  func.return %0 : !nn.sequence<tensor<*xf32>>
}

// -----

/// An operator of another domain has unknown effects: it stays.
// CHECK-LABEL: func.func @negative_opaque_custom_domain
func.func @negative_opaque_custom_domain() -> tensor<2xf32> {
  // CHECK: nn.opaque %{{.*}} {op_type = "Floor", domain = "com.example"}
  %a = nn.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %0 = nn.opaque %a {op_type = "Floor", domain = "com.example"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

/// 4 + 4 elements in, 16 out: the model would grow by 8 > max-size elements.
// CHECK-LABEL: func.func @negative_size_cap
func.func @negative_size_cap() -> tensor<4x4xf32> {
  // CHECK: nn.add
  %a = nn.constant dense<[[1.0], [2.0], [3.0], [4.0]]> : tensor<4x1xf32>
  %b = nn.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %0 = nn.add %a, %b : (tensor<4x1xf32>, tensor<1x4xf32>) -> tensor<4x4xf32>
  func.return %0 : tensor<4x4xf32>
}

// -----

/// A splat result counts whole (the export writes every element): 64 > 4 + 2.
// CHECK-LABEL: func.func @negative_splat_counted_whole
func.func @negative_splat_counted_whole() -> tensor<8x8xf32> {
  // CHECK: nn.constant_of_shape
  %s = nn.constant dense<[8, 8]> : tensor<2xi64>
  %0 = nn.constant_of_shape %s {value = dense<7.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}

// -----

/// A dynamic result of a function nothing calls: the constant refines its signature.
// CHECK-LABEL: func.func @refined_return_type() -> tensor<2xf32>
func.func @refined_return_type() -> tensor<?xf32> {
  // CHECK-NEXT: %[[C:.*]] = nn.constant dense<[2.71828{{[0-9]*}}, 7.38905{{[0-9]*}}]> : tensor<2xf32>
  // CHECK-NEXT: func.return %[[C]] : tensor<2xf32>
  %a = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = nn.exp %a : (tensor<2xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

/// A called function keeps its signature: the static constant is returned
/// through a tensor.cast.
// CHECK-LABEL: func.func @refined_return_type_of_called() -> tensor<?xf32>
func.func @refined_return_type_of_called() -> tensor<?xf32> {
  // CHECK-NEXT: %[[C:.*]] = nn.constant dense<[2.71828{{[0-9]*}}, 7.38905{{[0-9]*}}]> : tensor<2xf32>
  // CHECK-NEXT: %[[R:.*]] = tensor.cast %[[C]] : tensor<2xf32> to tensor<?xf32>
  // CHECK-NEXT: func.return %[[R]] : tensor<?xf32>
  %a = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = nn.exp %a : (tensor<2xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
func.func @caller() -> tensor<?xf32> {
  %0 = func.call @refined_return_type_of_called() : () -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

/// shape, size and rank read static dims even of a non-constant input.
// CHECK-LABEL: func.func @materialize_shape_queries
func.func @materialize_shape_queries(%x: tensor<?x3x4xf32>, %y: tensor<2x3xf32>) -> (tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>) {
  // CHECK-DAG: nn.constant dense<[3, 4]> : tensor<2xi64>
  // CHECK-DAG: nn.constant dense<6> : tensor<i64>
  // CHECK-DAG: nn.constant dense<3> : tensor<i64>
  // CHECK-NOT: nn.shape
  // CHECK-NOT: nn.size
  // CHECK-NOT: nn.rank
  // CHECK-NOT: nn.gather
  %0 = nn.shape %x {start = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
  %1 = nn.size %y : (tensor<2x3xf32>) -> tensor<i64>
  %2 = nn.rank %x : (tensor<?x3x4xf32>) -> tensor<i64>
  %s = nn.shape %x : (tensor<?x3x4xf32>) -> tensor<3xi64>
  %i = nn.constant dense<-2> : tensor<i64>
  %3 = nn.gather %s, %i : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  func.return %0, %1, %2, %3 : tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>
}

// -----

/// A slice of a shape reads only the dims it keeps.
// CHECK-LABEL: func.func @slice_of_shape
func.func @slice_of_shape(%x: tensor<?x3x4xf32>) -> tensor<2xi64> {
  // CHECK-NEXT: %[[C:.*]] = nn.constant dense<[3, 4]> : tensor<2xi64>
  // CHECK-NEXT: func.return %[[C]]
  %s = nn.shape %x : (tensor<?x3x4xf32>) -> tensor<3xi64>
  %b = nn.constant dense<1> : tensor<1xi64>
  %e = nn.constant dense<3> : tensor<1xi64>
  %a = nn.constant dense<0> : tensor<1xi64>
  %0 = nn.slice %s, %b, %e, %a, %b : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  func.return %0 : tensor<2xi64>
}

// -----

/// Dims that are unknown stay queries.
// CHECK-LABEL: func.func @negative_dynamic_dims
func.func @negative_dynamic_dims(%x: tensor<?x3xf32>) -> (tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<1xi64>) {
  // CHECK: nn.shape %x
  // CHECK: nn.size %x
  // CHECK: nn.gather
  // CHECK: nn.slice
  %0 = nn.shape %x : (tensor<?x3xf32>) -> tensor<2xi64>
  %1 = nn.size %x : (tensor<?x3xf32>) -> tensor<i64>
  %i = nn.constant dense<0> : tensor<1xi64>
  %2 = nn.gather %0, %i : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
  %3 = nn.squeeze %2 {axes = array<i64: 0>} : (tensor<1xi64>) -> tensor<i64>
  %e = nn.constant dense<1> : tensor<1xi64>
  %4 = nn.slice %0, %i, %e, %i, %e : (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  func.return %0, %1, %3, %4 : tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<1xi64>
}

// -----

/// Shape -> Gather -> Unsqueeze -> Concat -> Reshape collapses to a constant shape.
// CHECK-LABEL: func.func @shape_chain
func.func @shape_chain(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  // CHECK-NEXT: %[[S:.*]] = nn.constant dense<[2, -1]> : tensor<2xi64>
  // CHECK-NEXT: %[[R:.*]] = nn.reshape %x, %[[S]]
  // CHECK-NEXT: func.return %[[R]]
  %s = nn.shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %i = nn.constant dense<0> : tensor<i64>
  %d = nn.gather %s, %i : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %u = nn.unsqueeze %d {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %m = nn.constant dense<-1> : tensor<1xi64>
  %t = nn.concat %u, %m {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = nn.reshape %x, %t : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  func.return %r : tensor<2x12xf32>
}

// -----

/// Ops that are identities for the shapes and constants they get.
// CHECK-LABEL: func.func @identities_for_shapes
func.func @identities_for_shapes(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: func.return %x
  %s = nn.constant dense<[2, 3]> : tensor<2xi64>
  %0 = nn.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %1 = nn.transpose %0 {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.cast %1 {to = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %one = nn.constant dense<1.0> : tensor<1x3xf32>
  %3 = nn.mul %2, %one : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %zero = nn.constant dense<0.0> : tensor<f32>
  %4 = nn.add %zero, %3 : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = nn.sub %4, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %6 = nn.div %5, %one : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %7 = nn.pad %6 {pads = array<i64: 0, 0, 0, 0>, mode = "reflect"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = nn.clip %7 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = nn.concat %8 {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %9 : tensor<2x3xf32>
}

// -----

/// Reductions over size-1 axes: the input, squeezed without keepdims.
// CHECK-LABEL: func.func @unit_reductions
func.func @unit_reductions(%x: tensor<?x1x4xf32>) -> (tensor<?x1x4xf32>, tensor<?x4xf32>) {
  // CHECK-NEXT: %[[S:.*]] = nn.squeeze %x {axes = array<i64: 1>} : (tensor<?x1x4xf32>) -> tensor<?x4xf32>
  // CHECK-NEXT: func.return %x, %[[S]]
  %0 = nn.reduce_mean %x {axes = array<i64: 1>} : (tensor<?x1x4xf32>) -> tensor<?x1x4xf32>
  %1 = nn.reduce_max %x {axes = array<i64: -2>, keepdims = 0 : i64} : (tensor<?x1x4xf32>) -> tensor<?x4xf32>
  func.return %0, %1 : tensor<?x1x4xf32>, tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @negative_not_identities
func.func @negative_not_identities(%x: tensor<1x3xf32>, %y: tensor<?xf32>, %z: tensor<3x2xf32>) -> (tensor<2x3xf32>, tensor<?xf32>, tensor<2x3xf32>, tensor<1x2xf32>, tensor<2x3xf32>) {
  // CHECK: nn.add %x
  // CHECK: nn.mul %y
  // CHECK: nn.transpose %z
  // CHECK: nn.reduce_sum %z
  // CHECK: nn.pad %x
  %zeros = nn.constant dense<0.0> : tensor<2x3xf32>
  %0 = nn.add %x, %zeros : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %ones = nn.constant dense<1.0> : tensor<3xf32>
  %1 = nn.mul %y, %ones : (tensor<?xf32>, tensor<3xf32>) -> tensor<?xf32>
  %2 = nn.transpose %z {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %3 = nn.reduce_sum %z {axes = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<1x2xf32>
  %4 = nn.pad %x {pads = array<i64: 0, 0, 1, 0>} : (tensor<1x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<?xf32>, tensor<2x3xf32>, tensor<1x2xf32>, tensor<2x3xf32>
}

// -----

/// Equal constants (type and bytes) become one.
// CHECK-LABEL: func.func @deduplicate_constants
func.func @deduplicate_constants(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xi32>) {
  // CHECK-NEXT: %[[C:.*]] = nn.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  // CHECK-NEXT: nn.sub %x, %[[C]]
  // CHECK-NEXT: nn.constant dense<[1, 2]> : tensor<2xi32>
  // CHECK-NEXT: nn.sub %x, %[[C]]
  %a = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = nn.sub %x, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %i = nn.constant dense<[1, 2]> : tensor<2xi32>
  %b = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = nn.sub %x, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0, %1, %i : tensor<2xf32>, tensor<2xf32>, tensor<2xi32>
}

// -----

/// A weight's fake quantization stays: convert-to-int reads its range.
// CHECK-LABEL: func.func @negative_fake_quant_of_weight
func.func @negative_fake_quant_of_weight() -> tensor<2xf32> {
  // CHECK-NEXT: %[[W:.*]] = nn.constant
  // CHECK-NEXT: %[[Q:.*]] = nn.fake_quant %[[W]]
  // CHECK-NEXT: func.return %[[Q]]
  %w = nn.constant dense<[0.3, -0.7]> : tensor<2xf32>
  %q = nn.fake_quant %w {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %q : tensor<2xf32>
}

// -----

/// A slice with step -1 folds (its result is a reversed view: regression for a
/// crash in the splat check).
// CHECK-LABEL: func.func @reversed_slice
// CHECK-NEXT:    %[[S:.*]] = nn.constant dense<[4.000000e+00, 3.000000e+00, 2.000000e+00, 1.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    func.return %[[S]]
func.func @reversed_slice() -> tensor<4xf32> {
  %c = nn.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %starts = nn.constant dense<[-1]> : tensor<1xi64>
  %ends = nn.constant dense<[-9223372036854775807]> : tensor<1xi64>
  %axes = nn.constant dense<[0]> : tensor<1xi64>
  %steps = nn.constant dense<[-1]> : tensor<1xi64>
  %s = nn.slice %c, %starts, %ends, %axes, %steps : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// -----

/// A reshape target built from the input's own dims and one unknown becomes
/// a constant: 0 copies a dim, -1 infers the other.
// CHECK-LABEL: func.func @reshape_to_known_target
func.func @reshape_to_known_target(%x: tensor<?x?x8xf32>, %n: tensor<1xi64>) -> tensor<*xf32> {
  // CHECK-NEXT: %[[T:.*]] = nn.constant dense<[0, -1, 2, 4]> : tensor<4xi64>
  // CHECK-NEXT: %[[R:.*]] = nn.reshape %x, %[[T]] {{.*}} -> tensor<?x?x2x4xf32>
  // CHECK-NEXT: func.return %[[R]]
  %s = nn.shape %x : (tensor<?x?x8xf32>) -> tensor<3xi64>
  %i = nn.constant dense<0> : tensor<i64>
  %d = nn.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %u = nn.unsqueeze %d {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %c = nn.constant dense<[2, 4]> : tensor<2xi64>
  %t = nn.concat %u, %n, %c {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  %r = nn.reshape %x, %t : (tensor<?x?x8xf32>, tensor<4xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

/// Two unknown elements: -1 cannot stand for both.
// CHECK-LABEL: func.func @negative_reshape_to_known_target
func.func @negative_reshape_to_known_target(%x: tensor<?x?x8xf32>, %n: tensor<1xi64>, %m: tensor<1xi64>) -> tensor<*xf32> {
  // CHECK: nn.concat
  // CHECK: nn.reshape
  %c = nn.constant dense<8> : tensor<1xi64>
  %t = nn.concat %n, %m, %c {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %r = nn.reshape %x, %t : (tensor<?x?x8xf32>, tensor<3xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

/// A reshape that gives back each dim (copied, repeated, or the one inferred) is
/// its input, also with dynamic dims.
// CHECK-LABEL: func.func @reshape_to_own_shape
func.func @reshape_to_own_shape(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // CHECK-NEXT: func.return %x
  %t = nn.constant dense<[0, -1, 8]> : tensor<3xi64>
  %r = nn.reshape %x, %t : (tensor<?x?x8xf32>, tensor<3xi64>) -> tensor<?x?x8xf32>
  func.return %r : tensor<?x?x8xf32>
}

// -----

/// With allowzero a 0 is a size, not a copy.
// CHECK-LABEL: func.func @negative_reshape_to_own_shape
func.func @negative_reshape_to_own_shape(%x: tensor<?x?x8xf32>) -> tensor<*xf32> {
  // CHECK: nn.reshape
  %t = nn.constant dense<[0, -1, 8]> : tensor<3xi64>
  %r = nn.reshape %x, %t {allowzero = 1 : i64} : (tensor<?x?x8xf32>, tensor<3xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

/// Squeezing a dim and unsqueezing it back at the same axis (or the converse) does nothing.
// CHECK-LABEL: func.func @squeeze_unsqueeze_cancel
func.func @squeeze_unsqueeze_cancel(%x: tensor<?xi64>, %y: tensor<2x3xf32>) -> (tensor<2xi64>, tensor<2x3xf32>) {
  // CHECK-NEXT: %[[C:.*]] = nn.concat %x, %x
  // CHECK-NEXT: func.return %[[C]], %y
  %s = nn.squeeze %x {axes = array<i64: 0>} : (tensor<?xi64>) -> tensor<i64>
  %u = nn.unsqueeze %s {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %c = nn.concat %u, %u {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %v = nn.unsqueeze %y {axes = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  %w = nn.squeeze %v {axes = array<i64: 2>} : (tensor<2x3x1xf32>) -> tensor<2x3xf32>
  func.return %c, %w : tensor<2xi64>, tensor<2x3xf32>
}

// -----

/// Other axes: the dims move.
// CHECK-LABEL: func.func @negative_squeeze_unsqueeze_cancel
func.func @negative_squeeze_unsqueeze_cancel(%x: tensor<1x3xf32>) -> tensor<3x1xf32> {
  // CHECK: nn.squeeze
  // CHECK: nn.unsqueeze
  %s = nn.squeeze %x {axes = array<i64: 0>} : (tensor<1x3xf32>) -> tensor<3xf32>
  %u = nn.unsqueeze %s {axes = array<i64: 1>} : (tensor<3xf32>) -> tensor<3x1xf32>
  func.return %u : tensor<3x1xf32>
}

// -----

/// Unsqueezes in a row are one unsqueeze; squeezes with axes in a row are one squeeze.
// CHECK-LABEL: func.func @merge_squeezes_and_unsqueezes
func.func @merge_squeezes_and_unsqueezes(%x: tensor<?xi64>, %y: tensor<1x3x1x1xf32>) -> (tensor<?x1x1x1xi64>, tensor<3xf32>) {
  // CHECK-NEXT: %[[U:.*]] = nn.unsqueeze %x {axes = array<i64: 1, 2, 3>}
  // CHECK-NEXT: %[[S:.*]] = nn.squeeze %y {axes = array<i64: 0, 2, 3>}
  // CHECK-NEXT: func.return %[[U]], %[[S]]
  %a = nn.unsqueeze %x {axes = array<i64: 1>} : (tensor<?xi64>) -> tensor<?x1xi64>
  %b = nn.unsqueeze %a {axes = array<i64: 2>} : (tensor<?x1xi64>) -> tensor<?x1x1xi64>
  %c = nn.unsqueeze %b {axes = array<i64: -1>} : (tensor<?x1x1xi64>) -> tensor<?x1x1x1xi64>
  %d = nn.squeeze %y {axes = array<i64: 2>} : (tensor<1x3x1x1xf32>) -> tensor<1x3x1xf32>
  %e = nn.squeeze %d {axes = array<i64: 0, 2>} : (tensor<1x3x1xf32>) -> tensor<3xf32>
  func.return %c, %e : tensor<?x1x1x1xi64>, tensor<3xf32>
}

// -----

/// A squeeze of every unit dim: which ones depends on the shape.
// CHECK-LABEL: func.func @negative_merge_squeezes
func.func @negative_merge_squeezes(%y: tensor<1x?x1xf32>) -> tensor<*xf32> {
  // CHECK: nn.squeeze
  // CHECK: nn.squeeze
  %d = nn.squeeze %y {axes = array<i64: 0>} : (tensor<1x?x1xf32>) -> tensor<?x1xf32>
  %e = nn.squeeze %d : (tensor<?x1xf32>) -> tensor<*xf32>
  func.return %e : tensor<*xf32>
}

// -----

/// A reshape to a constant target of a reshape (or squeeze, unsqueeze, flatten) reshapes the first input.
// CHECK-LABEL: func.func @merge_reshapes
func.func @merge_reshapes(%x: tensor<?x6xf32>) -> tensor<?x2x3xf32> {
  // CHECK-NEXT: %[[T:.*]] = nn.constant dense<[-1, 2, 3]>
  // CHECK-NEXT: %[[R:.*]] = nn.reshape %x, %[[T]]
  // CHECK-NEXT: func.return %[[R]]
  %u = nn.unsqueeze %x {axes = array<i64: 0>} : (tensor<?x6xf32>) -> tensor<1x?x6xf32>
  %t = nn.constant dense<[-1, 2, 3]> : tensor<3xi64>
  %r = nn.reshape %u, %t : (tensor<1x?x6xf32>, tensor<3xi64>) -> tensor<?x2x3xf32>
  func.return %r : tensor<?x2x3xf32>
}

// -----

/// A 0 in the second target copies a dim of the first result.
// CHECK-LABEL: func.func @negative_merge_reshapes
func.func @negative_merge_reshapes(%x: tensor<?x6xf32>) -> tensor<1x?x3xf32> {
  // CHECK: nn.unsqueeze
  // CHECK: nn.reshape
  %u = nn.unsqueeze %x {axes = array<i64: 0>} : (tensor<?x6xf32>) -> tensor<1x?x6xf32>
  %t = nn.constant dense<[0, -1, 3]> : tensor<3xi64>
  %r = nn.reshape %u, %t : (tensor<1x?x6xf32>, tensor<3xi64>) -> tensor<1x?x3xf32>
  func.return %r : tensor<1x?x3xf32>
}

// -----

/// Dims are never negative: comparing them with -1 is false, and the select
/// of TorchScript's expand picks the dims.
// CHECK-LABEL: func.func @dims_never_negative
func.func @dims_never_negative(%x: tensor<?x?xf32>) -> tensor<3xi64> {
  // CHECK-NEXT: %[[S:.*]] = nn.shape %x
  // CHECK-NEXT: %[[C:.*]] = nn.constant dense<4> : tensor<1xi64>
  // CHECK-NEXT: %[[T:.*]] = nn.concat %[[S]], %[[C]]
  // CHECK-NEXT: func.return %[[T]]
  %s = nn.shape %x : (tensor<?x?xf32>) -> tensor<2xi64>
  %c = nn.constant dense<4> : tensor<1xi64>
  %t = nn.concat %s, %c {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
  %m = nn.constant dense<-1> : tensor<3xi64>
  %e = nn.equal %t, %m : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %ones = nn.constant dense<1> : tensor<3xi64>
  %w = nn.select %e, %ones, %t : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  func.return %w : tensor<3xi64>
}

// -----

/// A dim may equal a non-negative number.
// CHECK-LABEL: func.func @negative_dims_never_negative
func.func @negative_dims_never_negative(%x: tensor<?x?xf32>) -> tensor<2xi1> {
  // CHECK: nn.equal
  %s = nn.shape %x : (tensor<?x?xf32>) -> tensor<2xi64>
  %m = nn.constant dense<1> : tensor<2xi64>
  %e = nn.equal %s, %m : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
  func.return %e : tensor<2xi1>
}

// -----

/// x and true, x or false, select on an all-true or all-false condition.
// CHECK-LABEL: func.func @neutral_logical_and_constant_select
func.func @neutral_logical_and_constant_select(%x: tensor<2x?xi1>, %a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x?xi1>, tensor<2x?xi1>, tensor<2x3xf32>) {
  // CHECK-NEXT: func.return %x, %x, %a
  %t = nn.constant dense<true> : tensor<i1>
  %f = nn.constant dense<false> : tensor<1x1xi1>
  %and = nn.logical_and %t, %x : (tensor<i1>, tensor<2x?xi1>) -> tensor<2x?xi1>
  %or = nn.logical_or %and, %f : (tensor<2x?xi1>, tensor<1x1xi1>) -> tensor<2x?xi1>
  %w = nn.select %t, %a, %b : (tensor<i1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %and, %or, %w : tensor<2x?xi1>, tensor<2x?xi1>, tensor<2x3xf32>
}

// -----

/// The constant would broadcast x larger; the other branch would broadcast the chosen one.
// CHECK-LABEL: func.func @negative_neutral_logical_and_constant_select
func.func @negative_neutral_logical_and_constant_select(%x: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xi1>, tensor<2x3xf32>) {
  // CHECK: nn.logical_and
  // CHECK: nn.select
  %t = nn.constant dense<true> : tensor<2x3xi1>
  %and = nn.logical_and %x, %t : (tensor<3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %c = nn.constant dense<true> : tensor<i1>
  %w = nn.select %c, %a, %b : (tensor<i1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %and, %w : tensor<2x3xi1>, tensor<2x3xf32>
}

// -----

/// The dims may be read from another tensor that has them: a matmul's rows
/// are its input's, and an elementwise op keeps the dims the other operand
/// does not broadcast.
// CHECK-LABEL: func.func @reshape_to_dims_of_matmul_input
func.func @reshape_to_dims_of_matmul_input(%x: tensor<?x?x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<*xf32> {
  // CHECK: %[[T:.*]] = nn.constant dense<[0, 0, 2, 4]> : tensor<4xi64>
  // CHECK: nn.reshape %{{.*}}, %[[T]]
  %n = nn.add %x, %b : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %m = nn.matmul %n, %w : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %s = nn.shape %x : (tensor<?x?x8xf32>) -> tensor<3xi64>
  %i = nn.constant dense<[0, 1]> : tensor<2xi64>
  %d = nn.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<2xi64>) -> tensor<2xi64>
  %c = nn.constant dense<[2, 4]> : tensor<2xi64>
  %t = nn.concat %d, %c {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
  %r = nn.reshape %m, %t : (tensor<?x?x8xf32>, tensor<4xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

/// An operand of unknown size may broadcast a dim: the dims are not the same.
// CHECK-LABEL: func.func @negative_reshape_to_dims_of_matmul_input
func.func @negative_reshape_to_dims_of_matmul_input(%x: tensor<?x?x8xf32>, %y: tensor<?x1x8xf32>) -> tensor<*xf32> {
  // CHECK: nn.concat
  // CHECK: nn.reshape
  %n = nn.add %y, %x : (tensor<?x1x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %s = nn.shape %y : (tensor<?x1x8xf32>) -> tensor<3xi64>
  %i = nn.constant dense<[0, 1]> : tensor<2xi64>
  %d = nn.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<2xi64>) -> tensor<2xi64>
  %u = nn.shape %x {start = 1 : i64, end = 2 : i64} : (tensor<?x?x8xf32>) -> tensor<1xi64>
  %c = nn.constant dense<[2, 4]> : tensor<2xi64>
  %t = nn.concat %u, %d, %c {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<5xi64>
  %r = nn.reshape %n, %t : (tensor<?x?x8xf32>, tensor<5xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

/// Attention heads of one token: moving the size-1 sequence dim moves no
/// element, so the transpose is a reshape, which merges with the one before.
// CHECK-LABEL: func.func @transpose_of_unit_dims_is_reshape
func.func @transpose_of_unit_dims_is_reshape(%x: tensor<?x1x128xf32>) -> tensor<?x4x1x32xf32> {
  // CHECK-NEXT: %[[T:.*]] = nn.constant dense<[-1, 4, 1, 32]>
  // CHECK-NEXT: %[[R:.*]] = nn.reshape %x, %[[T]]
  // CHECK-NEXT: func.return %[[R]]
  %s = nn.constant dense<[-1, 1, 4, 32]> : tensor<4xi64>
  %h = nn.reshape %x, %s : (tensor<?x1x128xf32>, tensor<4xi64>) -> tensor<?x1x4x32xf32>
  %t = nn.transpose %h {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x1x4x32xf32>) -> tensor<?x4x1x32xf32>
  func.return %t : tensor<?x4x1x32xf32>
}

// -----

/// Two dynamic dims: the one kept in place is copied (0), the other inferred.
// CHECK-LABEL: func.func @transpose_of_unit_dims_two_dynamic
func.func @transpose_of_unit_dims_two_dynamic(%x: tensor<?x1x?xf32>) -> tensor<?x?x1xf32> {
  // CHECK-NEXT: %[[T:.*]] = nn.constant dense<[0, -1, 1]>
  // CHECK-NEXT: %[[R:.*]] = nn.reshape %x, %[[T]]
  // CHECK-NEXT: func.return %[[R]]
  %t = nn.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<?x1x?xf32>) -> tensor<?x?x1xf32>
  func.return %t : tensor<?x?x1xf32>
}

// -----

/// Swapping two dims that are not 1 moves elements.
// CHECK-LABEL: func.func @negative_transpose_moves_data
func.func @negative_transpose_moves_data(%x: tensor<?x2x4x1xf32>) -> tensor<?x4x2x1xf32> {
  // CHECK-NEXT: %[[T:.*]] = nn.transpose %x
  // CHECK-NEXT: func.return %[[T]]
  %t = nn.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x2x4x1xf32>) -> tensor<?x4x2x1xf32>
  func.return %t : tensor<?x4x2x1xf32>
}

// -----

/// A dynamic dim may be larger than 1: it keeps its place among the others.
// CHECK-LABEL: func.func @negative_transpose_of_dynamic_dims
func.func @negative_transpose_of_dynamic_dims(%x: tensor<?x1x?xf32>) -> tensor<?x1x?xf32> {
  // CHECK-NEXT: %[[T:.*]] = nn.transpose %x
  // CHECK-NEXT: func.return %[[T]]
  %t = nn.transpose %x {perm = array<i64: 2, 1, 0>} : (tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  func.return %t : tensor<?x1x?xf32>
}

// -----

/// Three dynamic dims, two of them moved: one -1 cannot infer both.
// CHECK-LABEL: func.func @negative_transpose_of_unit_dims_two_inferred
func.func @negative_transpose_of_unit_dims_two_inferred(%x: tensor<1x?x?xf32>) -> tensor<?x?x1xf32> {
  // CHECK-NEXT: %[[T:.*]] = nn.transpose %x
  // CHECK-NEXT: func.return %[[T]]
  %t = nn.transpose %x {perm = array<i64: 1, 2, 0>} : (tensor<1x?x?xf32>) -> tensor<?x?x1xf32>
  func.return %t : tensor<?x?x1xf32>
}

// -----

/// A transpose of a transpose is one transpose by the composed permutation.
// CHECK-LABEL: func.func @merge_transposes
func.func @merge_transposes(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  // CHECK-NEXT: %[[T:.*]] = nn.transpose %x {perm = array<i64: 1, 2, 0>}
  // CHECK-NEXT: func.return %[[T]]
  %a = nn.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %b = nn.transpose %a {perm = array<i64: 2, 1, 0>} : (tensor<2x4x3xf32>) -> tensor<3x4x2xf32>
  func.return %b : tensor<3x4x2xf32>
}

// -----

/// Transposes whose permutations cancel leave the input.
// CHECK-LABEL: func.func @cancelling_transposes
func.func @cancelling_transposes(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: func.return %x
  %a = nn.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %b = nn.transpose %a {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  func.return %b : tensor<2x3xf32>
}

// -----

/// A conv keeps its input's batch: a detection head flattened to [batch, -1, 8]
/// by the image's dim 0 copies the dim.
// CHECK-LABEL: func.func @reshape_to_batch_of_conv_input
func.func @reshape_to_batch_of_conv_input(%x: tensor<?x3x4x4xf32>, %w: tensor<8x3x1x1xf32>) -> tensor<*xf32> {
  // CHECK: %[[T:.*]] = nn.constant dense<[0, -1, 8]> : tensor<3xi64>
  // CHECK: nn.reshape %{{.*}}, %[[T]]
  %c = nn.conv %x, %w {data_layout = "NCHW"} : (tensor<?x3x4x4xf32>, tensor<8x3x1x1xf32>) -> tensor<?x8x4x4xf32>
  %p = nn.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<?x8x4x4xf32>) -> tensor<?x4x4x8xf32>
  %s = nn.shape %x {end = 1 : i64} : (tensor<?x3x4x4xf32>) -> tensor<1xi64>
  %k = nn.constant dense<[-1, 8]> : tensor<2xi64>
  %t = nn.concat %s, %k {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  %r = nn.reshape %p, %t : (tensor<?x4x4x8xf32>, tensor<3xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

/// A conv's spatial dims are not its input's (strides, pads): the target stays computed.
// CHECK-LABEL: func.func @negative_reshape_to_spatial_dim_of_conv_input
func.func @negative_reshape_to_spatial_dim_of_conv_input(%x: tensor<1x3x?x4xf32>, %w: tensor<8x3x1x1xf32>) -> tensor<*xf32> {
  // CHECK: nn.concat
  // CHECK: nn.reshape
  %c = nn.conv %x, %w {data_layout = "NCHW"} : (tensor<1x3x?x4xf32>, tensor<8x3x1x1xf32>) -> tensor<1x8x?x4xf32>
  %s = nn.shape %x {start = 2 : i64, end = 3 : i64} : (tensor<1x3x?x4xf32>) -> tensor<1xi64>
  %k = nn.constant dense<[8, -1]> : tensor<2xi64>
  %t = nn.concat %k, %s {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
  %r = nn.reshape %c, %t : (tensor<1x8x?x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

/// Flattened rows of a matmul reshaped to [b, s, n] for an activation and
/// back to [-1, n]: the first reshape moves below the activation and the
/// scalar multiply, meets the second, and both go.
// CHECK-LABEL: func.func @sink_reshape_below_elementwise
func.func @sink_reshape_below_elementwise(%x: tensor<?x8xf32>, %t: tensor<3xi64>) -> tensor<?x8xf32> {
  // CHECK-NEXT: %[[G:.*]] = nn.gelu %x
  // CHECK-NOT: nn.reshape
  // CHECK: %[[M:.*]] = nn.mul %[[G]], %{{.*}} : (tensor<?x8xf32>, tensor<1x1xf32>) -> tensor<?x8xf32>
  // CHECK-NEXT: func.return %[[M]]
  %r = nn.reshape %x, %t {allowzero = 1 : i64} : (tensor<?x8xf32>, tensor<3xi64>) -> tensor<?x?x8xf32>
  %g = nn.gelu %r {approximate = "tanh"} : (tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %half = nn.constant dense<0.5> : tensor<1x1xf32>
  %m = nn.mul %g, %half : (tensor<?x?x8xf32>, tensor<1x1xf32>) -> tensor<?x?x8xf32>
  %flat = nn.constant dense<[-1, 8]> : tensor<2xi64>
  %back = nn.reshape %m, %flat {allowzero = 1 : i64} : (tensor<?x?x8xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  func.return %back : tensor<?x8xf32>
}

// -----

/// The reshape has another user: moving it would add a reshape.
// CHECK-LABEL: func.func @negative_sink_reshape_other_user
func.func @negative_sink_reshape_other_user(%x: tensor<6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK-NEXT: %[[C:.*]] = nn.constant
  // CHECK-NEXT: %[[R:.*]] = nn.reshape %x, %[[C]]
  // CHECK-NEXT: %[[E:.*]] = nn.exp %[[R]]
  // CHECK-NEXT: func.return %[[E]], %[[R]]
  %t = nn.constant dense<[2, 3]> : tensor<2xi64>
  %r = nn.reshape %x, %t : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %e = nn.exp %r : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %e, %r : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

/// A per-column operand broadcasts along a dim the reshape makes: it stays.
// CHECK-LABEL: func.func @negative_sink_reshape_broadcast_operand
func.func @negative_sink_reshape_broadcast_operand(%x: tensor<6xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[R:.*]] = nn.reshape %x
  // CHECK-NEXT: nn.add %[[R]], %b
  %t = nn.constant dense<[2, 3]> : tensor<2xi64>
  %r = nn.reshape %x, %t : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %a = nn.add %r, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %a : tensor<2x3xf32>
}

// -----

/// A one-element operand of higher rank than the reshape's input would
/// broadcast it to more dims: it stays.
// CHECK-LABEL: func.func @negative_sink_reshape_scalar_of_higher_rank
func.func @negative_sink_reshape_scalar_of_higher_rank(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[R:.*]] = nn.reshape %x
  // CHECK: nn.add %[[R]]
  %t = nn.constant dense<[2, 3]> : tensor<2xi64>
  %r = nn.reshape %x, %t : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %one = nn.constant dense<1.0> : tensor<1x1xf32>
  %a = nn.add %r, %one : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  func.return %a : tensor<2x3xf32>
}

// -----

/// repeat_kv: the heads [b, 2, s, 32] unsqueezed, expanded to [b, 2, 2, s, 32]
/// by their own dims and merged to [b, 4, s, 32]. Dims followed through the
/// unsqueeze and the expand make both targets constants: the expand keeps the
/// input's dims by 1, the reshape copies b by 0 and infers s by -1.
// CHECK-LABEL: func.func @repeat_kv_targets_fold
func.func @repeat_kv_targets_fold(%x: tensor<?x2x?x32xf32>) -> tensor<?x4x?x32xf32> {
  // CHECK-NEXT: %[[U:.*]] = nn.unsqueeze %x
  // CHECK-NEXT: %[[E:.*]] = nn.constant dense<[1, 2, 2, 1, 32]> : tensor<5xi64>
  // CHECK-NEXT: %[[X:.*]] = nn.opaque %[[U]], %[[E]] {op_type = "Expand"}
  // CHECK-NEXT: %[[R:.*]] = nn.constant dense<[0, 4, -1, 32]> : tensor<4xi64>
  // CHECK-NEXT: %[[Y:.*]] = nn.reshape %[[X]], %[[R]]
  // CHECK-NEXT: func.return %[[Y]]
  %zero = nn.constant dense<0> : tensor<i64>
  %two_i = nn.constant dense<2> : tensor<i64>
  %two = nn.constant dense<2> : tensor<1xi64>
  %four = nn.constant dense<4> : tensor<1xi64>
  %d32 = nn.constant dense<32> : tensor<1xi64>
  %shape = nn.shape %x : (tensor<?x2x?x32xf32>) -> tensor<4xi64>
  %b = nn.gather %shape, %zero {axis = 0 : i64} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %s = nn.gather %shape, %two_i {axis = 0 : i64} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %b1 = nn.unsqueeze %b {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %s1 = nn.unsqueeze %s {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %u = nn.unsqueeze %x {axes = array<i64: 2>} : (tensor<?x2x?x32xf32>) -> tensor<?x2x1x?x32xf32>
  %to = nn.concat %b1, %two, %two, %s1, %d32 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<5xi64>
  %e = nn.opaque %u, %to {op_type = "Expand"} : (tensor<?x2x1x?x32xf32>, tensor<5xi64>) -> tensor<?x?x?x?x32xf32>
  %t = nn.concat %b1, %four, %s1, %d32 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %r = nn.reshape %e, %t : (tensor<?x?x?x?x32xf32>, tensor<4xi64>) -> tensor<?x4x?x32xf32>
  func.return %r : tensor<?x4x?x32xf32>
}

// -----

/// The expand's target takes a dim of another tensor: broadcasting may change
/// it, so the target stays computed.
// CHECK-LABEL: func.func @negative_expand_to_other_tensor_dims
func.func @negative_expand_to_other_tensor_dims(%x: tensor<?x1xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // CHECK: %[[S:.*]] = nn.shape %y
  // CHECK: nn.opaque %x, %[[S]] {op_type = "Expand"}
  %shape = nn.shape %y : (tensor<?x?xf32>) -> tensor<2xi64>
  %e = nn.opaque %x, %shape {op_type = "Expand"} : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  func.return %e : tensor<?x?xf32>
}

// -----

/// Arguments whose dims carry the same symbolic name (ONNX's dim_param) have
/// equal sizes: a target from %ids' batch copies %mask's own by 0, and the
/// reshape to [0, -1] gives %mask its own shape.
// CHECK-LABEL: func.func @reshape_to_same_named_dim
func.func @reshape_to_same_named_dim(%ids: tensor<?x?xi64> {nn.dim_names = ["batch", "seq"]}, %mask: tensor<?x?xi64> {nn.dim_names = ["batch", "past"]}) -> tensor<?x?xi64> {
  // CHECK-NEXT: func.return %mask
  %minus = nn.constant dense<-1> : tensor<1xi64>
  %b = nn.shape %ids {end = 1 : i64, start = 0 : i64} : (tensor<?x?xi64>) -> tensor<1xi64>
  %t = nn.concat %b, %minus {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = nn.reshape %mask, %t : (tensor<?x?xi64>, tensor<2xi64>) -> tensor<?x?xi64>
  func.return %r : tensor<?x?xi64>
}

// -----

/// Differently named dims may differ: the target stays computed.
// CHECK-LABEL: func.func @negative_reshape_to_differently_named_dim
func.func @negative_reshape_to_differently_named_dim(%ids: tensor<?x?xi64> {nn.dim_names = ["batch", "seq"]}, %mask: tensor<?x?xi64> {nn.dim_names = ["beam", "past"]}) -> tensor<?x?xi64> {
  // CHECK: %[[B:.*]] = nn.shape %ids
  // CHECK: nn.reshape %mask
  %minus = nn.constant dense<-1> : tensor<1xi64>
  %b = nn.shape %ids {end = 1 : i64, start = 0 : i64} : (tensor<?x?xi64>) -> tensor<1xi64>
  %t = nn.concat %b, %minus {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = nn.reshape %mask, %t : (tensor<?x?xi64>, tensor<2xi64>) -> tensor<?x?xi64>
  func.return %r : tensor<?x?xi64>
}

// -----

/// Constant factors of a product chain merge into one: (x * 0.5) * [2, 4, 6].
// CHECK-LABEL: func.func @merge_constant_factors
func.func @merge_constant_factors(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %[[C:.*]] = nn.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
  // CHECK-NEXT: %[[R:.*]] = nn.mul %x, %[[C]]
  // CHECK-NEXT: func.return %[[R]]
  %half = nn.constant dense<0.5> : tensor<f32>
  %a = nn.mul %half, %x : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = nn.constant dense<[2.0, 4.0, 6.0]> : tensor<3xf32>
  %r = nn.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

/// x * 0.5 is read twice: merging would compute it twice.
// CHECK-LABEL: func.func @negative_merge_shared_product
func.func @negative_merge_shared_product(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // CHECK: %[[A:.*]] = nn.mul %x, %{{.*}}
  // CHECK: nn.mul %[[A]], %{{.*}}
  %half = nn.constant dense<0.5> : tensor<3xf32>
  %a = nn.mul %x, %half : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %b = nn.constant dense<[2.0, 4.0, 6.0]> : tensor<3xf32>
  %r = nn.mul %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %r, %a : tensor<3xf32>, tensor<3xf32>
}

// -----

/// [2, 1] and [1, 2] factors would make a [2, 2] constant: larger than either.
// CHECK-LABEL: func.func @negative_merge_growing_factor
func.func @negative_merge_growing_factor(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // CHECK: %[[A:.*]] = nn.mul %x, %{{.*}}
  // CHECK: nn.mul %[[A]], %{{.*}}
  %c = nn.constant dense<[[2.0], [3.0]]> : tensor<2x1xf32>
  %a = nn.mul %x, %c : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  %d = nn.constant dense<[[5.0, 7.0]]> : tensor<1x2xf32>
  %r = nn.mul %a, %d : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  func.return %r : tensor<2x2xf32>
}

// -----

/// Sums are not reassociated: (x + 1e8) - 1e8 is not x + 0 in floats.
// CHECK-LABEL: func.func @negative_merge_sums
func.func @negative_merge_sums(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[A:.*]] = nn.add %x, %{{.*}}
  // CHECK: nn.add %[[A]], %{{.*}}
  %big = nn.constant dense<1.0e+08> : tensor<3xf32>
  %a = nn.add %x, %big : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %minus = nn.constant dense<-1.0e+08> : tensor<3xf32>
  %r = nn.add %a, %minus : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

/// An ONNX Resize imported opaque because its sizes were computed: once they
/// fold to a constant, the importer makes it an nn.resize.
builtin.module attributes {nn.onnx_opset_import = {"" = 13 : i64}} {
  // CHECK-LABEL: func.func @resize_with_computed_sizes
  func.func @resize_with_computed_sizes(%x: tensor<1x2x3x3xf32>) -> tensor<*xf32> {
    %two = nn.constant dense<[1, 1, 2, 2]> : tensor<4xi64>
    %s = nn.shape %x : (tensor<1x2x3x3xf32>) -> tensor<4xi64>
    %sizes = nn.mul %s, %two : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    // CHECK: %[[Y:.*]] = nn.resize %x {sizes = array<i64: 1, 2, 6, 6>, mode = "linear", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_floor"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32>
    // CHECK-NOT: nn.opaque
    %y = nn.opaque %x, %sizes {op_type = "Resize", attrs = {mode = "linear"}, absent_inputs = array<i64: 1, 2>} : (tensor<1x2x3x3xf32>, tensor<4xi64>) -> tensor<*xf32>
    func.return %y : tensor<*xf32>
  }
}

// -----

/// Sizes that stay unknown keep the Resize opaque.
builtin.module attributes {nn.onnx_opset_import = {"" = 13 : i64}} {
  // CHECK-LABEL: func.func @negative_resize_with_input_sizes
  func.func @negative_resize_with_input_sizes(%x: tensor<1x2x3x3xf32>, %sizes: tensor<4xi64>) -> tensor<*xf32> {
    // CHECK: nn.opaque %x, %sizes {op_type = "Resize"
    %y = nn.opaque %x, %sizes {op_type = "Resize", attrs = {mode = "linear"}, absent_inputs = array<i64: 1, 2>} : (tensor<1x2x3x3xf32>, tensor<4xi64>) -> tensor<*xf32>
    func.return %y : tensor<*xf32>
  }
}

// -----

/// Cubic interpolation has no nn.resize form: constant sizes leave it opaque.
builtin.module attributes {nn.onnx_opset_import = {"" = 13 : i64}} {
  // CHECK-LABEL: func.func @negative_cubic_resize
  func.func @negative_cubic_resize(%x: tensor<1x2x3x3xf32>) -> tensor<*xf32> {
    %sizes = nn.constant dense<[1, 2, 6, 6]> : tensor<4xi64>
    // CHECK: nn.opaque %x, %{{.*}} {op_type = "Resize", attrs = {mode = "cubic"}
    %y = nn.opaque %x, %sizes {op_type = "Resize", attrs = {mode = "cubic"}, absent_inputs = array<i64: 1, 2>} : (tensor<1x2x3x3xf32>, tensor<4xi64>) -> tensor<*xf32>
    func.return %y : tensor<*xf32>
  }
}

// -----

/// A shape query that is static only once a reshape's type is refined folds
/// in the same run.
// CHECK-LABEL: func.func @shape_of_refined_reshape
// CHECK-SAME: -> tensor<2xi64>
// CHECK-NEXT: %[[Q:.*]] = nn.constant dense<[3, 2]> : tensor<2xi64>
// CHECK-NEXT: func.return %[[Q]]
func.func @shape_of_refined_reshape(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  %s = nn.constant dense<[3, 2]> : tensor<2xi64>
  %r = nn.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %q = nn.shape %r : (tensor<?x?xf32>) -> tensor<2xi64>
  func.return %q : tensor<2xi64>
}
