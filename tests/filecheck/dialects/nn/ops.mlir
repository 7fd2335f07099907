// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = nn.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: nn.clip %{{.*}} {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32}
  %1 = nn.clip %0 {min = 0.0 : f32, max = 6.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @conv_nhwc
func.func @conv_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<1x4x4x16xf32> {
  // CHECK: nn.conv {{.*}} {strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC"}
  %0 = nn.conv %x, %w {strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x4x4x16xf32>
  func.return %0 : tensor<1x4x4x16xf32>
}
