// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// An embedding lookup (axis 0): the table is already [1, K, C] after a reshape,
/// the i64 indices are cast to i32, wrapped when negative and flattened to [1, W].
// CHECK-LABEL: func.func @gather_embedding
func.func @gather_embedding(%table: tensor<10x4xf32>, %ids: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  // CHECK: %[[I:.*]] = tosa.cast %ids : (tensor<2x3xi64>) -> tensor<2x3xi32>
  // CHECK: %[[NEG:.*]] = tosa.greater %{{.*}}, %[[I]]
  // CHECK: %[[UP:.*]] = tosa.add %[[I]], %{{.*}}
  // CHECK: %[[W:.*]] = tosa.select %[[NEG]], %[[UP]], %[[I]]
  // CHECK: %[[F:.*]] = tosa.reshape %[[W]], %{{.*}} -> tensor<1x6xi32>
  // CHECK: %[[V:.*]] = tosa.reshape %table, %{{.*}} -> tensor<1x10x4xf32>
  // CHECK: %[[G:.*]] = tosa.gather %[[V]], %[[F]] : (tensor<1x10x4xf32>, tensor<1x6xi32>) -> tensor<1x6x4xf32>
  // CHECK: %[[R:.*]] = tosa.reshape %[[G]], %{{.*}} -> tensor<2x3x4xf32>
  // CHECK: func.return %[[R]]
  %y = nn.gather %table, %ids : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

/// Along an inner axis the dims before it become TOSA's N: constant indices fold
/// to i32 (negative ones wrapped) and are tiled over N.
// CHECK-LABEL: func.func @gather_inner_axis_constant_indices
func.func @gather_inner_axis_constant_indices(%x: tensor<2x5x3xf32>) -> tensor<2x2x3xf32> {
  // CHECK: %[[C:.*]] = "tosa.const"() <{values = dense<[0, 4]> : tensor<2xi32>}>
  // CHECK: %[[F:.*]] = tosa.reshape %[[C]], %{{.*}} -> tensor<1x2xi32>
  // CHECK: %[[M:.*]] = "tosa.const_shape"() <{values = dense<[2, 1]> : tensor<2xindex>}>
  // CHECK: %[[T:.*]] = tosa.tile %[[F]], %[[M]] : (tensor<1x2xi32>, !tosa.shape<2>) -> tensor<2x2xi32>
  // CHECK: tosa.gather %{{.*}}, %[[T]] : (tensor<2x5x3xf32>, tensor<2x2xi32>) -> tensor<2x2x3xf32>
  %i = nn.constant dense<[0, -1]> : tensor<2xi64>
  %y = nn.gather %x, %i {axis = 1 : i64} : (tensor<2x5x3xf32>, tensor<2xi64>) -> tensor<2x2x3xf32>
  func.return %y : tensor<2x2x3xf32>
}

// -----

/// Expand (and tile) become tosa.tile of the input brought to the result's rank.
// CHECK-LABEL: func.func @expand_and_tile
func.func @expand_and_tile(%x: tensor<3x1xf32>) -> (tensor<2x3x4xf32>, tensor<6x1xf32>) {
  // CHECK: %[[R:.*]] = tosa.reshape %x, %{{.*}} -> tensor<1x3x1xf32>
  // CHECK: %[[M:.*]] = "tosa.const_shape"() <{values = dense<[2, 1, 4]> : tensor<3xindex>}>
  // CHECK: %[[E:.*]] = tosa.tile %[[R]], %[[M]] : (tensor<1x3x1xf32>, !tosa.shape<3>) -> tensor<2x3x4xf32>
  // CHECK: %[[T:.*]] = tosa.tile %x, %{{.*}} : (tensor<3x1xf32>, !tosa.shape<2>) -> tensor<6x1xf32>
  // CHECK: func.return %[[E]], %[[T]]
  %s = nn.constant dense<[2, 1, 4]> : tensor<3xi64>
  %e = nn.expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %r = nn.constant dense<[2, 1]> : tensor<2xi64>
  %t = nn.tile %x, %r : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<6x1xf32>
  func.return %e, %t : tensor<2x3x4xf32>, tensor<6x1xf32>
}

// -----

/// A shape computed at run time has no TOSA form, even when the result type is known.
func.func @negative_expand_computed_shape(%x: tensor<3x1xf32>, %s: tensor<2xi64>) -> tensor<3x4xf32> {
  %e = nn.expand %x, %s : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  func.return %e : tensor<3x4xf32>
}
// CHECK: lower-to-tosa: cannot lower nn.expand at {{.*}}: nn.expand needs a constant shape operand

// -----

/// gather_nd with constant indices: the K-tuples fold to row-major indices into
/// the data flattened to [1, 2 * 4, 3] (a negative entry wrapped: [1, -1] -> 7).
// CHECK-LABEL: func.func @gather_nd_constant
func.func @gather_nd_constant(%x: tensor<2x4x3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[I:.*]] = "tosa.const"() <{values = dense<{{\[\[}}3, 7]]> : tensor<1x2xi32>}>
  // CHECK: %[[V:.*]] = tosa.reshape %x, %{{.*}} -> tensor<1x8x3xf32>
  // CHECK: %[[G:.*]] = tosa.gather %[[V]], %[[I]] : (tensor<1x8x3xf32>, tensor<1x2xi32>) -> tensor<1x2x3xf32>
  // CHECK: tosa.reshape %[[G]], %{{.*}} -> tensor<2x3xf32>
  %i = nn.constant dense<[[0, 3], [1, -1]]> : tensor<2x2xi64>
  %y = nn.gather_nd %x, %i : (tensor<2x4x3xf32>, tensor<2x2xi64>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

/// TOSA gathers no booleans: i1 data goes through i8.
// CHECK-LABEL: func.func @gather_bool
func.func @gather_bool(%m: tensor<4x2xi1>, %i: tensor<3xi32>) -> tensor<3x2xi1> {
  // CHECK: %[[B:.*]] = tosa.cast %{{.*}} : (tensor<1x4x2xi1>) -> tensor<1x4x2xi8>
  // CHECK: %[[G:.*]] = tosa.gather %[[B]], %{{.*}} -> tensor<1x3x2xi8>
  // CHECK: tosa.cast %[[G]] : (tensor<1x3x2xi8>) -> tensor<1x3x2xi1>
  %y = nn.gather %m, %i : (tensor<4x2xi1>, tensor<3xi32>) -> tensor<3x2xi1>
  func.return %y : tensor<3x2xi1>
}

// -----

func.func @negative_gather_nd_batch_dims(%x: tensor<2x4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %y = nn.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
// CHECK: lower-to-tosa: cannot lower nn.gather_nd at {{.*}}: only gather_nd with batch_dims 0 lowers to TOSA

// -----

/// gather_elements along axis 1 of [2, 3, 4] with [2, 2, 4] indices: the data
/// flattened to [1, 24, 1], each position's index wrapped, scaled by the axis
/// stride (4) and added to the constant offset of its other coordinates.
// CHECK-LABEL: func.func @gather_elements
func.func @gather_elements(%x: tensor<2x3x4xf32>, %i: tensor<2x2x4xi64>) -> tensor<2x2x4xf32> {
  // CHECK: %[[I:.*]] = tosa.cast %i : (tensor<2x2x4xi64>) -> tensor<2x2x4xi32>
  // CHECK: %[[W:.*]] = tosa.select %{{.*}}, %{{.*}}, %[[I]]
  // CHECK: %[[S:.*]] = tosa.mul %[[W]], %{{.*}}, %{{.*}} : (tensor<2x2x4xi32>, tensor<1x1x1xi32>, tensor<1xi8>) -> tensor<2x2x4xi32>
  // CHECK: %[[O:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}0, 1, 2, 3], [0, 1, 2, 3]], {{\[\[}}12, 13, 14, 15], [12, 13, 14, 15]]]> : tensor<2x2x4xi32>}>
  // CHECK: %[[L:.*]] = tosa.add %[[S]], %[[O]]
  // CHECK: %[[V:.*]] = tosa.reshape %x, %{{.*}} -> tensor<1x24x1xf32>
  // CHECK: %[[F:.*]] = tosa.reshape %[[L]], %{{.*}} -> tensor<1x16xi32>
  // CHECK: %[[G:.*]] = tosa.gather %[[V]], %[[F]] : (tensor<1x24x1xf32>, tensor<1x16xi32>) -> tensor<1x16x1xf32>
  // CHECK: %[[R:.*]] = tosa.reshape %[[G]], %{{.*}} -> tensor<2x2x4xf32>
  // CHECK: func.return %[[R]]
  %y = nn.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x2x4xi64>) -> tensor<2x2x4xf32>
  func.return %y : tensor<2x2x4xf32>
}

// -----

/// Constant indices fold to the linear indices (-1 on axis 0 of size 3 is 2).
// CHECK-LABEL: func.func @gather_elements_constant_indices
func.func @gather_elements_constant_indices(%x: tensor<3x2xf32>) -> tensor<1x2xf32> {
  // CHECK: %[[L:.*]] = "tosa.const"() <{values = dense<{{\[\[}}4, 1]]> : tensor<1x2xi32>}>
  // CHECK: tosa.gather %{{.*}}, %[[L]] : (tensor<1x6x1xf32>, tensor<1x2xi32>) -> tensor<1x2x1xf32>
  %i = nn.constant dense<[[-1, 0]]> : tensor<1x2xi64>
  %y = nn.gather_elements %x, %i : (tensor<3x2xf32>, tensor<1x2xi64>) -> tensor<1x2xf32>
  func.return %y : tensor<1x2xf32>
}

// -----

/// More elements than an i32 index can address: no TOSA form.
func.func @negative_gather_elements_too_large(%x: tensor<65536x32768xf32>, %i: tensor<1x2xi64>) -> tensor<1x2xf32> {
  %y = nn.gather_elements %x, %i : (tensor<65536x32768xf32>, tensor<1x2xi64>) -> tensor<1x2xf32>
  func.return %y : tensor<1x2xf32>
}
// CHECK: lower-to-tosa: cannot lower nn.gather_elements at {{.*}}: TOSA's i32 gather indices cannot address data this large

// -----

/// IREE gathers i64 values at i64 indices only: the i32 indices are cast.
// CHECK-LABEL: func.func @gather_i64_values
func.func @gather_i64_values(%x: tensor<5xi64>, %i: tensor<2xi32>) -> tensor<2xi64> {
  // CHECK: %[[I:.*]] = tosa.cast %{{.*}} : (tensor<1x2xi32>) -> tensor<1x2xi64>
  // CHECK: tosa.gather %{{.*}}, %[[I]] : (tensor<1x5x1xi64>, tensor<1x2xi64>) -> tensor<1x2x1xi64>
  %y = nn.gather %x, %i : (tensor<5xi64>, tensor<2xi32>) -> tensor<2xi64>
  func.return %y : tensor<2xi64>
}
