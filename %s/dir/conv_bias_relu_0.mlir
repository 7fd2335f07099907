builtin.module {
  func.func @conv_bias_relu_0(%0: tensor<1x3x8x8xf32>, %1: tensor<4x3x3x3xf32>, %2: tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32> attributes {composite = "conv-bias-relu", PartitionedFromPattern = "nn.conv_nn.add_nn.relu_"} {
    %conv = nn.conv %0, %1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    %bias = nn.add %conv, %2 : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
    %relu = nn.relu %bias : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    func.return %relu : tensor<1x4x6x6xf32>
  }
}
