// RUN: graph-opt %s --split-input-file --pass=optimize | filecheck %s

/// Identity, batch norm and relu around a conv end as one fused conv.
// CHECK-LABEL: func.func @conv_identity_bn_relu
// CHECK-NEXT:    %[[W:.*]] = nn.constant
// CHECK-NEXT:    %[[B:.*]] = nn.constant
// CHECK-NEXT:    %[[Y:.*]] = nn.fused_conv %{{.*}}, %[[W]], %[[B]] {activation = "relu"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv_identity_bn_relu(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = nn.constant dense<0.5> : tensor<2x2x1x1xf32>
  %p = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c = nn.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %i = nn.identity %c : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %b = nn.batch_norm %i, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %r = nn.relu %b : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}

// -----

/// A batch norm on a graph input has nothing to fold into: it stays.
// CHECK-LABEL: func.func @negative_bn_on_input
// CHECK:         nn.batch_norm
func.func @negative_bn_on_input(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %p = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = nn.batch_norm %x, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %b : tensor<1x2x4x4xf32>
}
