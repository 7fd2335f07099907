// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @qavg_pool_float_input(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32> {
  %y = nn.qavg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32>
  func.return %y : tensor<1x3x2x2xf32>
}
// CHECK: qavg_pool input must be a i8 tensor, got tensor<1x3x4x4xf32>

// -----

func.func @qavg_pool_zero_point_range(%x: tensor<1x3x4x4xi8>) -> tensor<1x3x2x2xi8> {
  %y = nn.qavg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, output_zp = 200 : i64} : (tensor<1x3x4x4xi8>) -> tensor<1x3x2x2xi8>
  func.return %y : tensor<1x3x2x2xi8>
}
// CHECK: output_zp 200 is out of range [-128, 127]
