// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// Two batches, two classes of 6 boxes, at most 3 per class: the boxes put in
/// score order per (batch, class) row, the greedy keep mask iterated to its fixed
/// point in a tosa.while_loop, the kept rows written to a [2 * 2 * 3, 3] buffer,
/// and the function returns as many rows as were kept; the gather of the
/// selected boxes is retyped with the bound.
// CHECK-LABEL: func.func @nms_then_gather
func.func @nms_then_gather(%b: tensor<2x6x4xf32>, %s: tensor<2x2x6xf32>) -> (tensor<?x3xi64>, tensor<?xi64>) {
  // CHECK: %[[ROWS:.*]] = tosa.reshape %s, %{{.*}} -> tensor<4x6xf32>
  // CHECK: tosa.greater %{{.*}}, %{{.*}} : (tensor<4x1x6xf32>, tensor<4x6x1xf32>) -> tensor<4x6x6xi1>
  // CHECK: tosa.gather %{{.*}}, %{{.*}} : (tensor<4x6x1xf32>, tensor<4x6xi32>) -> tensor<4x6x1xf32>
  // CHECK: tosa.tile %{{.*}}, %{{.*}} : (tensor<2x1x6x4xf32>, !tosa.shape<4>) -> tensor<2x2x6x4xf32>
  // CHECK: tosa.reciprocal %{{.*}} : (tensor<4x6x6xf32>) -> tensor<4x6x6xf32>
  // CHECK: "tosa.while_loop"
  // CHECK: tosa.reduce_any %{{.*}} {axis = 2 : i32} : (tensor<4x6x6xi1>) -> tensor<4x6x1xi1>
  // CHECK: tosa.logical_xor
  // CHECK: %[[COUNT:.*]] = tosa.reshape %{{.*}}, %{{.*}} : (tensor<1x1xi32>, !tosa.shape<0>) -> tensor<i32>
  // CHECK: tosa.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i32} : (tensor<12x1xi32>, tensor<12x1xi32>, tensor<12x1xi32>) -> tensor<12x3xi32>
  // CHECK: %[[SEL:.*]] = tosa.cast %{{.*}} : (tensor<12x3xi32>) -> tensor<12x3xi64>
  // CHECK: tosa.gather %{{.*}}, %{{.*}} : (tensor<12x3x1xi64>, tensor<12x1xi64>) -> tensor<12x1x1xi64>
  // CHECK: %[[N:.*]] = tensor.extract %[[COUNT]][] : tensor<i32>
  // CHECK: %[[I:.*]] = arith.index_cast %[[N]] : i32 to index
  // CHECK: %[[R0:.*]] = tensor.extract_slice %[[SEL]][0, 0] [%[[I]], 3] [1, 1] : tensor<12x3xi64> to tensor<?x3xi64>
  // CHECK: %[[R1:.*]] = tensor.extract_slice %{{.*}}[0] [%[[I]]] [1] : tensor<12xi64> to tensor<?xi64>
  // CHECK: func.return %[[R0]], %[[R1]] : tensor<?x3xi64>, tensor<?xi64>
  %sel = nn.non_max_suppression %b, %s {max_output_boxes_per_class = 3 : i64, iou_threshold = 0.5 : f32, score_threshold = 0.2 : f32} : (tensor<2x6x4xf32>, tensor<2x2x6xf32>) -> tensor<?x3xi64>
  %c2 = nn.constant dense<2> : tensor<i64>
  %box = nn.gather %sel, %c2 {axis = 1 : i64} : (tensor<?x3xi64>, tensor<i64>) -> tensor<?xi64>
  func.return %sel, %box : tensor<?x3xi64>, tensor<?xi64>
}

// -----

/// A sum over the selected rows would add the padding rows in: refused.
func.func @negative_nms_rows_reduced(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) -> tensor<1x3xi64> {
  %sel = nn.non_max_suppression %b, %s {max_output_boxes_per_class = 3 : i64, iou_threshold = 0.5 : f32} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> tensor<?x3xi64>
  %sum = nn.reduce_sum %sel {axes = array<i64: 0>} : (tensor<?x3xi64>) -> tensor<1x3xi64>
  func.return %sum : tensor<1x3xi64>
}
// CHECK: lower-to-tosa: cannot lower nn.non_max_suppression at {{.*}}: its rows cannot be bounded: it reaches nn.reduce_sum: it is not a row-wise op

// -----

func.func @negative_nms_no_boxes(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) -> tensor<?x3xi64> {
  %sel = nn.non_max_suppression %b, %s {max_output_boxes_per_class = 0 : i64, iou_threshold = 0.5 : f32} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> tensor<?x3xi64>
  func.return %sel : tensor<?x3xi64>
}
// CHECK: lower-to-tosa: cannot lower nn.non_max_suppression at {{.*}}: it selects no boxes (max_output_boxes_per_class 0)

// -----

/// Picking selected rows by position would pick padding when fewer were kept.
func.func @negative_nms_rows_gathered(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) -> tensor<1x3xi64> {
  %sel = nn.non_max_suppression %b, %s {max_output_boxes_per_class = 3 : i64, iou_threshold = 0.5 : f32} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> tensor<?x3xi64>
  %i = nn.constant dense<[2]> : tensor<1xi64>
  %row = nn.gather %sel, %i {axis = 0 : i64} : (tensor<?x3xi64>, tensor<1xi64>) -> tensor<1x3xi64>
  func.return %row : tensor<1x3xi64>
}
// CHECK: lower-to-tosa: cannot lower nn.non_max_suppression at {{.*}}: its rows cannot be bounded: it reaches nn.gather: it gathers rows of them
