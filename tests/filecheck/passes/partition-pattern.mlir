// RUN: graph-opt %s --split-input-file -p 'partition-pattern{pattern=conv-bias-relu}' | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'partition-pattern{pattern=conv-bias-relu},partition-pattern{pattern=conv-bias-relu}' | filecheck %s

// RUN: graph-opt %s --split-input-file -p 'partition-pattern{pattern=conv-bias-relu embed-constants=true escaping=duplicate}' | filecheck %s --check-prefix=TVM
// RUN: not graph-opt %s --split-input-file -p 'partition-pattern{pattern=conv-bias-relu escaping=copy}' 2>&1 | filecheck %s --check-prefix=BAD

/// The second RUN line partitions twice: partitions already made stay whole.

/// Two conv+bias(+relu) chains: each becomes its own composite function.
// CHECK-LABEL: func.func @two_chains
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x8x8xf32>)
func.func @two_chains(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %w = nn.constant dense<1.0> : tensor<4x3x3x3xf32>
  %b = nn.constant dense<0.5> : tensor<4x1x1xf32>
  %w2 = nn.constant dense<1.0> : tensor<4x4x3x3xf32>
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %bias = nn.add %conv, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %relu = nn.relu %bias : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %conv2 = nn.conv %relu, %w2 : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %bias2 = nn.add %conv2, %b : (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
  func.return %bias2 : tensor<1x4x4x4xf32>
}
// CHECK-DAG:   %[[W:.*]] = nn.constant dense<1.000000e+00> : tensor<4x3x3x3xf32>
// CHECK-DAG:   %[[B:.*]] = nn.constant dense<5.000000e-01> : tensor<4x1x1xf32>
// CHECK:       %[[FIRST:.*]] = func.call @conv_bias_relu_0(%[[X]], %[[W]], %[[B]])
// CHECK-NEXT:  %[[SECOND:.*]] = func.call @conv_bias_relu_1(%[[FIRST]], %{{.*}}, %[[B]])
// CHECK-NEXT:  func.return %[[SECOND]]
// CHECK:       func.func private @conv_bias_relu_0({{.*}}) -> tensor<1x4x6x6xf32> attributes {composite = "conv-bias-relu", PartitionedFromPattern = "nn.conv_nn.add_nn.relu_"}
// CHECK-NEXT:    nn.conv
// CHECK-NEXT:    nn.add
// CHECK-NEXT:    nn.relu
// CHECK-NEXT:    func.return
// CHECK:       func.func private @conv_bias_relu_1({{.*}}) -> tensor<1x4x4x4xf32> attributes {composite = "conv-bias-relu", PartitionedFromPattern = "nn.conv_nn.add_"}
// CHECK-NEXT:    nn.conv
// CHECK-NEXT:    nn.add
// CHECK-NEXT:    func.return

// -----

/// The conv result is also returned: outlining it would hide a value, so nothing moves.
/// With escaping=duplicate (TVM's way) the match is outlined, constants
/// inside, and the conv stays in the caller for its other user.
// CHECK-LABEL: func.func @negative_escaping_conv
// CHECK-NOT:   func.call
// CHECK:       nn.conv
// CHECK-NOT:   func.func private
// TVM-LABEL:   func.func @negative_escaping_conv
// TVM:           %[[CONV:.*]] = nn.conv %x
// TVM:           %[[CALL:.*]] = func.call @conv_bias_relu_0(%x) :
// TVM-NEXT:      func.return %[[CALL]], %[[CONV]]
// TVM:         func.func private @conv_bias_relu_0(%{{.*}}: tensor<1x3x8x8xf32>)
// TVM-NEXT:      nn.constant dense<1.000000e+00>
// TVM-NEXT:      nn.constant dense<5.000000e-01>
// TVM-NEXT:      nn.conv
// TVM-NEXT:      nn.add
// TVM-NEXT:      func.return
// BAD: escaping must be 'skip' or 'duplicate', not 'copy'
func.func @negative_escaping_conv(%x: tensor<1x3x8x8xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %w = nn.constant dense<1.0> : tensor<4x3x3x3xf32>
  %b = nn.constant dense<0.5> : tensor<4x1x1xf32>
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %bias = nn.add %conv, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  func.return %bias, %conv : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

/// The bias is not a constant: no match.
// CHECK-LABEL: func.func @negative_dynamic_bias
// CHECK-NOT:   func.call
func.func @negative_dynamic_bias(%x: tensor<1x3x8x8xf32>, %b: tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %w = nn.constant dense<1.0> : tensor<4x3x3x3xf32>
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %bias = nn.add %conv, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  func.return %bias : tensor<1x4x6x6xf32>
}
