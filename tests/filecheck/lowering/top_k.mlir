// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// The largest 2 of 5 along the middle axis: moved last (6 rows of 5), each
/// entry ranked by the entries that are larger or equal and earlier, the entry
/// of rank p picked by a one-hot sum, its value gathered; i64 indices cast.
// CHECK-LABEL: func.func @top_k_middle_axis
func.func @top_k_middle_axis(%x: tensor<2x5x3xf32>) -> (tensor<2x2x3xf32>, tensor<2x2x3xi64>) {
  // CHECK: %[[T:.*]] = tosa.transpose %x {perms = array<i32: 0, 2, 1>}
  // CHECK: %[[ROWS:.*]] = tosa.reshape %[[T]], %{{.*}} -> tensor<6x5xf32>
  // CHECK: %[[MINE:.*]] = tosa.reshape %[[ROWS]], %{{.*}} -> tensor<6x5x1xf32>
  // CHECK: %[[OTHER:.*]] = tosa.reshape %[[ROWS]], %{{.*}} -> tensor<6x1x5xf32>
  // CHECK: %[[BETTER:.*]] = tosa.greater %[[OTHER]], %[[MINE]] : (tensor<6x1x5xf32>, tensor<6x5x1xf32>) -> tensor<6x5x5xi1>
  // CHECK: %[[EQ:.*]] = tosa.equal %[[OTHER]], %[[MINE]]
  // CHECK: %[[EARLIER:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}false, false, false, false, false], [true, false, false, false, false]
  // CHECK: %[[TIE:.*]] = tosa.logical_and %[[EQ]], %[[EARLIER]]
  // CHECK: %[[BEFORE:.*]] = tosa.logical_or %[[BETTER]], %[[TIE]]
  // CHECK: %[[COUNT:.*]] = tosa.cast %[[BEFORE]] : (tensor<6x5x5xi1>) -> tensor<6x5x5xi32>
  // CHECK: tosa.reduce_sum %[[COUNT]] {axis = 2 : i32} : (tensor<6x5x5xi32>) -> tensor<6x5x1xi32>
  // CHECK: %[[HOT:.*]] = tosa.equal %{{.*}}, %{{.*}} : (tensor<6x1x5xi32>, tensor<1x2x1xi32>) -> tensor<6x2x5xi1>
  // CHECK: tosa.select %[[HOT]]
  // CHECK: %[[I:.*]] = tosa.reshape %{{.*}}, %{{.*}} -> tensor<6x2xi32>
  // CHECK: tosa.gather %{{.*}}, %[[I]] : (tensor<6x5x1xf32>, tensor<6x2xi32>) -> tensor<6x2x1xf32>
  // CHECK: %[[V:.*]] = tosa.transpose %{{.*}} {perms = array<i32: 0, 2, 1>} : (tensor<2x3x2xf32>) -> tensor<2x2x3xf32>
  // CHECK: %[[IT:.*]] = tosa.transpose %{{.*}} {perms = array<i32: 0, 2, 1>} : (tensor<2x3x2xi32>) -> tensor<2x2x3xi32>
  // CHECK: %[[I64:.*]] = tosa.cast %[[IT]] : (tensor<2x2x3xi32>) -> tensor<2x2x3xi64>
  // CHECK: func.return %[[V]], %[[I64]]
  %v, %i = nn.top_k %x {k = 2 : i64, axis = 1 : i64} : (tensor<2x5x3xf32>) -> (tensor<2x2x3xf32>, tensor<2x2x3xi64>)
  func.return %v, %i : tensor<2x2x3xf32>, tensor<2x2x3xi64>
}

// -----

/// The smallest: an entry is beaten by smaller ones (operands of greater swapped).
// CHECK-LABEL: func.func @top_k_smallest
func.func @top_k_smallest(%x: tensor<4xi32>) -> (tensor<1xi32>, tensor<1xi64>) {
  // CHECK: %[[MINE:.*]] = tosa.reshape %{{.*}}, %{{.*}} -> tensor<1x4x1xi32>
  // CHECK: %[[OTHER:.*]] = tosa.reshape %{{.*}}, %{{.*}} -> tensor<1x1x4xi32>
  // CHECK: tosa.greater %[[MINE]], %[[OTHER]] : (tensor<1x4x1xi32>, tensor<1x1x4xi32>) -> tensor<1x4x4xi1>
  %v, %i = nn.top_k %x {k = 1 : i64, largest = 0 : i64} : (tensor<4xi32>) -> (tensor<1xi32>, tensor<1xi64>)
  func.return %v, %i : tensor<1xi32>, tensor<1xi64>
}

// -----

/// TOSA compares no i8.
func.func @negative_top_k_i8(%x: tensor<4xi8>) -> (tensor<2xi8>, tensor<2xi64>) {
  %v, %i = nn.top_k %x {k = 2 : i64} : (tensor<4xi8>) -> (tensor<2xi8>, tensor<2xi64>)
  func.return %v, %i : tensor<2xi8>, tensor<2xi64>
}
// CHECK: lower-to-tosa: cannot lower nn.top_k at {{.*}}: TOSA compares floats, i32 and i64 only

// -----

/// Ranking 10000 entries would take 10^8 comparisons.
func.func @negative_top_k_too_long(%x: tensor<10000xf32>) -> (tensor<2xf32>, tensor<2xi64>) {
  %v, %i = nn.top_k %x {k = 2 : i64} : (tensor<10000xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  func.return %v, %i : tensor<2xf32>, tensor<2xi64>
}
// CHECK: lower-to-tosa: cannot lower nn.top_k at {{.*}}: ranking 1 x 10000 entries takes 100000000 comparisons, more than 67108864
