// RUN: graph-opt %s --split-input-file -p convert-layout | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'convert-layout{keep-io-layout=false}' | filecheck %s --check-prefix=IO
// RUN: graph-opt %s --split-input-file -p 'convert-layout{target=NHWC}' | filecheck %s --check-prefix=NHWC

/// A chain of NHWC convs with a BiasAdd-like per-channel add and a relu between:
/// one transpose at the input, one at the output; the filters and the [C] bias
/// are transposed constants.
// CHECK-LABEL: func.func @conv_chain
// CHECK-NEXT:    %[[X:.*]] = nn.transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
// CHECK-DAG:     %[[W1:.*]] = nn.constant dense<5.000000e-01> : tensor<4x3x3x3xf32>
// CHECK-DAG:     %[[B:.*]] = nn.constant dense<{{\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]], {{\[\[}}3.000000e+00]], {{\[\[}}4.000000e+00]]]> : tensor<4x1x1xf32>
// CHECK-DAG:     %[[W2:.*]] = nn.constant dense<2.500000e-01> : tensor<4x4x1x1xf32>
// CHECK:         %[[C1:.*]] = nn.conv %[[X]], %[[W1]] {data_layout = "NCHW", auto_pad = "SAME_UPPER"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[A:.*]] = nn.add %[[C1]], %[[B]] : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[R:.*]] = nn.relu %[[A]] : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[C2:.*]] = nn.conv %[[R]], %[[W2]] {data_layout = "NCHW"}
// CHECK-NEXT:    %[[Y:.*]] = nn.transpose %[[C2]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
// IO-LABEL: func.func @conv_chain(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32>
// IO-NOT:     nn.transpose
// IO:         nn.relu
// IO-NEXT:    %[[C2:.*]] = nn.conv
// IO:         func.return %[[C2]] : tensor<1x4x8x8xf32>
// NHWC-LABEL: func.func @conv_chain
// NHWC-NOT:   nn.transpose
func.func @conv_chain(%x: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
  %w1 = nn.constant dense<0.5> : tensor<3x3x3x4xf32>
  %b = nn.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %w2 = nn.constant dense<0.25> : tensor<1x1x4x4xf32>
  %c1 = nn.conv %x, %w1 {data_layout = "NHWC", auto_pad = "SAME_UPPER"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  %a = nn.add %c1, %b : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  %r = nn.relu %a : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %c2 = nn.conv %r, %w2 {data_layout = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %c2 : tensor<1x8x8x4xf32>
}

// -----

/// Pooling keeps its window properties; only data_layout changes.
// CHECK-LABEL: func.func @pooling
// CHECK:         nn.transpose %x {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    %[[M:.*]] = nn.max_pool %{{.*}} {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, data_layout = "NCHW"} : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
// CHECK-NEXT:    %[[G:.*]] = nn.global_avg_pool %[[M]] {data_layout = "NCHW"} : (tensor<1x3x3x3xf32>) -> tensor<1x3x1x1xf32>
// CHECK-NEXT:    nn.transpose %[[G]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x1x1xf32>) -> tensor<1x1x1x3xf32>
// CHECK-NOT:     nn.transpose
func.func @pooling(%x: tensor<1x7x7x3xf32>) -> tensor<1x1x1x3xf32> {
  %m = nn.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, data_layout = "NHWC"} : (tensor<1x7x7x3xf32>) -> tensor<1x3x3x3xf32>
  %g = nn.global_avg_pool %m {data_layout = "NHWC"} : (tensor<1x3x3x3xf32>) -> tensor<1x1x1x3xf32>
  func.return %g : tensor<1x1x1x3xf32>
}

// -----

/// Batch norm parameters are per channel in both layouts: they stay as they are.
// CHECK-LABEL: func.func @batch_norm
// CHECK:         %[[X:.*]] = nn.transpose %x
// CHECK:         %[[BN:.*]] = nn.batch_norm %[[X]], %s, %s, %s, %s {epsilon = 1.000000e-03 : f32, data_layout = "NCHW"} : (tensor<2x2x3x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2x3x4xf32>
// CHECK-NEXT:    nn.transpose %[[BN]] {perm = array<i64: 0, 2, 3, 1>}
func.func @batch_norm(%x: tensor<2x3x4x2xf32>) -> tensor<2x3x4x2xf32> {
  %s = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = nn.batch_norm %x, %s, %s, %s, %s {epsilon = 1.0e-3 : f32, data_layout = "NHWC"} : (tensor<2x3x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x3x4x2xf32>
  func.return %y : tensor<2x3x4x2xf32>
}

// -----

/// A concat on the channel axis (-1 in NHWC) becomes one on axis 1; both convs
/// share the input transpose.
// CHECK-LABEL: func.func @concat_channels
// CHECK-COUNT-1: nn.transpose %x
// CHECK:         %[[A:.*]] = nn.conv
// CHECK:         %[[B:.*]] = nn.conv
// CHECK:         %[[J:.*]] = nn.concat %[[A]], %[[B]] {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x5x4x4xf32>
// CHECK-NEXT:    nn.transpose %[[J]]
// CHECK-NOT:     nn.transpose
func.func @concat_channels(%x: tensor<1x4x4x3xf32>) -> tensor<1x4x4x5xf32> {
  %w1 = nn.constant dense<1.0> : tensor<1x1x3x2xf32>
  %w2 = nn.constant dense<2.0> : tensor<1x1x3x3xf32>
  %a = nn.conv %x, %w1 {data_layout = "NHWC"} : (tensor<1x4x4x3xf32>, tensor<1x1x3x2xf32>) -> tensor<1x4x4x2xf32>
  %b = nn.conv %x, %w2 {data_layout = "NHWC"} : (tensor<1x4x4x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x4x4x3xf32>
  %j = nn.concat %a, %b {axis = -1 : i64} : (tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x5xf32>
  func.return %j : tensor<1x4x4x5xf32>
}

// -----

/// A mean over H and W without keepdims gives [N, C] in both layouts: no output transpose.
// CHECK-LABEL: func.func @reduce_spatial
// CHECK:         %[[C:.*]] = nn.conv
// CHECK-NEXT:    %[[M:.*]] = nn.reduce_mean %[[C]] {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<1x2x5x5xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:    func.return %[[M]]
func.func @reduce_spatial(%x: tensor<1x5x5x3xf32>) -> tensor<1x2xf32> {
  %w = nn.constant dense<1.0> : tensor<1x1x3x2xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x5x5x3xf32>, tensor<1x1x3x2xf32>) -> tensor<1x5x5x2xf32>
  %m = nn.reduce_mean %c {axes = array<i64: 1, 2>, keepdims = 0 : i64} : (tensor<1x5x5x2xf32>) -> tensor<1x2xf32>
  func.return %m : tensor<1x2xf32>
}

// -----

/// Spatial pads and a channel softmax between convs move with the data.
// CHECK-LABEL: func.func @pad_softmax
// CHECK:         %[[C:.*]] = nn.conv
// CHECK-NEXT:    %[[P:.*]] = nn.pad %[[C]] {pads = array<i64: 0, 0, 1, 2, 0, 0, 3, 0>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x7x5xf32>
// CHECK-NEXT:    %[[S:.*]] = nn.softmax %[[P]] {axis = 1 : i64}
// CHECK-NEXT:    nn.conv %[[S]]
func.func @pad_softmax(%x: tensor<1x3x3x2xf32>) -> tensor<1x7x5x2xf32> {
  %w = nn.constant dense<1.0> : tensor<1x1x2x2xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x3x3x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x3x3x2xf32>
  %p = nn.pad %c {pads = array<i64: 0, 1, 2, 0, 0, 3, 0, 0>} : (tensor<1x3x3x2xf32>) -> tensor<1x7x5x2xf32>
  %s = nn.softmax %p {axis = 3 : i64} : (tensor<1x7x5x2xf32>) -> tensor<1x7x5x2xf32>
  %d = nn.conv %s, %w {data_layout = "NHWC"} : (tensor<1x7x5x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x7x5x2xf32>
  func.return %d : tensor<1x7x5x2xf32>
}

// -----

/// Transposes already in the graph compose and cancel; one of a constant folds.
// CHECK-LABEL: func.func @transposes_cancel
// CHECK-NEXT:    %[[C:.*]] = nn.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    func.return %x, %[[C]]
func.func @transposes_cancel(%x: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<2x2xf32>) {
  %a = nn.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %b = nn.transpose %a {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
  %c = nn.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %d = nn.transpose %c {perm = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %b, %d : tensor<1x2x3x4xf32>, tensor<2x2xf32>
}

// -----

/// To NHWC (target option), an ONNX-style NCHW conv gets an HWIO filter; pooling follows.
// NHWC-LABEL: func.func @nchw_to_nhwc
// NHWC-NEXT:    %[[X:.*]] = nn.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x5x5x2xf32>
// NHWC-NEXT:    %[[W:.*]] = nn.constant dense<1.000000e+00> : tensor<3x3x2x4xf32>
// NHWC-NEXT:    %[[C:.*]] = nn.conv %[[X]], %[[W]] {data_layout = "NHWC"} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
// NHWC-NEXT:    %[[R:.*]] = nn.relu %[[C]]
// NHWC-NEXT:    %[[M:.*]] = nn.max_pool %[[R]] {kernel_shape = array<i64: 2, 2>, data_layout = "NHWC"} : (tensor<1x3x3x4xf32>) -> tensor<1x2x2x4xf32>
// NHWC-NEXT:    %[[Y:.*]] = nn.transpose %[[M]] {perm = array<i64: 0, 3, 1, 2>}
// NHWC-NEXT:    func.return %[[Y]]
// CHECK-LABEL: func.func @nchw_to_nhwc
// CHECK-NOT:     nn.transpose
func.func @nchw_to_nhwc(%x: tensor<1x2x5x5xf32>) -> tensor<1x4x2x2xf32> {
  %w = nn.constant dense<1.0> : tensor<4x2x3x3xf32>
  %c = nn.conv %x, %w : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %r = nn.relu %c : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %m = nn.max_pool %r {kernel_shape = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>) -> tensor<1x4x2x2xf32>
  func.return %m : tensor<1x4x2x2xf32>
}

// -----

/// keep-io-layout=false: the second input, added to converted data, takes NCHW too.
// IO-LABEL: func.func @io_residual(%x: tensor<1x2x4x4xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// IO-NOT:     nn.transpose
// IO:         %[[C:.*]] = nn.conv %x
// IO-NEXT:    %[[S:.*]] = nn.add %[[C]], %y : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// IO-NEXT:    %[[D:.*]] = nn.conv %[[S]]
// IO-NEXT:    func.return %[[D]]
// CHECK-LABEL: func.func @io_residual
// CHECK-COUNT-4: nn.transpose
// CHECK-NOT:     nn.transpose
func.func @io_residual(%x: tensor<1x4x4x2xf32>, %y: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = nn.constant dense<1.0> : tensor<1x1x2x2xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %s = nn.add %c, %y : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %d = nn.conv %s, %w {data_layout = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %d : tensor<1x4x4x2xf32>
}

// -----

/// Already NCHW (the default layout): nothing changes.
// CHECK-LABEL: func.func @negative_already_nchw
// CHECK-NOT:     nn.transpose
// CHECK:         nn.conv %x, %w : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
func.func @negative_already_nchw(%x: tensor<1x2x5x5xf32>) -> tensor<1x4x3x3xf32> {
  %w = nn.constant dense<1.0> : tensor<4x2x3x3xf32>
  %c = nn.conv %x, %w : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  func.return %c : tensor<1x4x3x3xf32>
}

// -----

/// A layer norm over the last axis depends on the dim order: it stays NHWC,
/// between transposes.
// CHECK-LABEL: func.func @negative_layer_norm
// CHECK:         %[[C:.*]] = nn.conv
// CHECK-NEXT:    %[[T:.*]] = nn.transpose %[[C]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[L:.*]] = nn.layer_norm %[[T]], %s : (tensor<1x4x4x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    nn.transpose %[[L]] {perm = array<i64: 0, 3, 1, 2>}
func.func @negative_layer_norm(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = nn.constant dense<1.0> : tensor<1x1x2x2xf32>
  %s = nn.constant dense<1.0> : tensor<2xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %l = nn.layer_norm %c, %s : (tensor<1x4x4x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  %d = nn.conv %l, %w {data_layout = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %d : tensor<1x4x4x2xf32>
}

// -----

/// Moving the output transpose below the add would need a new transpose on %y.
// CHECK-LABEL: func.func @negative_add_of_unconverted_input
// CHECK:         %[[T:.*]] = nn.transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    nn.add %[[T]], %y : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
func.func @negative_add_of_unconverted_input(%x: tensor<1x4x4x2xf32>, %y: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = nn.constant dense<1.0> : tensor<1x1x2x2xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %s = nn.add %c, %y : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %s : tensor<1x4x4x2xf32>
}

// -----

/// Rank-2 data has no spatial dims: a batch norm is the same in both layouts.
// CHECK-LABEL: func.func @negative_rank_2_batch_norm
// CHECK-NOT:     nn.transpose
// CHECK:         nn.batch_norm %x, %s, %s, %s, %s {data_layout = "NHWC"}
func.func @negative_rank_2_batch_norm(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %s = nn.constant dense<1.0> : tensor<2xf32>
  %y = nn.batch_norm %x, %s, %s, %s, %s {data_layout = "NHWC"} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}
