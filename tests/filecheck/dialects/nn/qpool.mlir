// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

/// nn.qavg_pool round-trips with its zero points; the result shape is nn.avg_pool's.
// CHECK-LABEL: func.func @qavg_pool
// CHECK: nn.qavg_pool %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, input_zp = -3 : i64, output_zp = 5 : i64} : (tensor<1x3x4x4xi8>) -> tensor<1x3x2x2xi8>
func.func @qavg_pool(%x: tensor<1x3x4x4xi8>) -> tensor<1x3x2x2xi8> {
  %y = nn.qavg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, input_zp = -3 : i64, output_zp = 5 : i64} : (tensor<1x3x4x4xi8>) -> tensor<1x3x2x2xi8>
  func.return %y : tensor<1x3x2x2xi8>
}
