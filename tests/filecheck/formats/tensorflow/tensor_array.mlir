// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tensor_array_v1.pb -p optimize | filecheck %s
// RUN: not graph-opt %S/../../../formats/tensorflow/fixtures/tensor_array_dynamic_v1.pb 2>&1 | filecheck %s --check-prefix=DYNAMIC

/// A TF1 TensorArray in a v1 while loop (make_tensor_array_fixtures.py): one
/// dense tensor carried by the loop; unstack is a gather, read a gather, write
/// a select at the index, stack a gather, concat a reshape.
// CHECK-LABEL: func.func @main(%x: tensor<4x2x3xf32> {nn.name = "x"}
// CHECK:         %[[UNSTACKED:.*]] = nn.gather %x, %{{.*}} {axis = 0 : i64} : (tensor<4x2x3xf32>, tensor<4xi64>) -> tensor<4x2x3xf32>
// CHECK:         %{{.*}} = scf.while ({{.*}}%[[ITEMS:.*]] = %[[UNSTACKED]]
// CHECK:           %while_TensorArrayReadV3 = nn.gather {{.*}} {axis = 0 : i64} : (tensor<4x2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
// CHECK:           %while_TensorArrayWrite_TensorArrayWriteV3 = nn.select {{.*}} -> tensor<4x2x3xf32>
// CHECK:         %TensorArrayStack_TensorArrayGatherV3 = nn.gather {{.*}} -> tensor<4x2x3xf32>
// CHECK:         %TensorArrayConcatV3 = nn.reshape {{.*}} -> tensor<8x3xf32>
// CHECK-NOT:     TensorArrayV3

/// A TensorArray that grows (dynamic_size=true) has no size to carry: refused by name.
// DYNAMIC: error: unsupported attribute values: TensorArrayV3 dynamic_size=true (node 'TensorArray_1')
