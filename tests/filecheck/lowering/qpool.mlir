// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// nn.qavg_pool -> int8 tosa.avg_pool2d with its zero points as operands and
/// an i32 accumulator (NCHW data transposed around it).
// CHECK-LABEL: func.func @qavg_pool_nchw
// CHECK:         %[[T:.*]] = tosa.transpose %x
// CHECK-DAG:     %[[IZP:.*]] = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}>
// CHECK-DAG:     %[[OZP:.*]] = "tosa.const"() <{values = dense<5> : tensor<1xi8>}>
// CHECK:         %[[P:.*]] = tosa.avg_pool2d %[[T]], %[[IZP]], %[[OZP]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, acc_type = i32} : (tensor<1x4x4x3xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x3xi8>
// CHECK:         tosa.transpose %[[P]]
func.func @qavg_pool_nchw(%x: tensor<1x3x4x4xi8>) -> tensor<1x3x2x2xi8> {
  %y = nn.qavg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, input_zp = -3 : i64, output_zp = 5 : i64} : (tensor<1x3x4x4xi8>) -> tensor<1x3x2x2xi8>
  func.return %y : tensor<1x3x2x2xi8>
}

// -----

func.func @negative_integer_avg_pool(%x: tensor<1x3x4x4xi8>) -> tensor<1x3x2x2xi8> {
  %y = nn.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x4x4xi8>) -> tensor<1x3x2x2xi8>
  func.return %y : tensor<1x3x2x2xi8>
}
// CHECK: cannot lower nn.avg_pool at {{.*}}: only 2-D float pooling lowers to TOSA (and int max pooling, nn.qavg_pool)
