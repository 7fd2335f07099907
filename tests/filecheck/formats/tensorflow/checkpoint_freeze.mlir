// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/checkpoint/graph.pbtxt --input-checkpoint=%S/../../../formats/tensorflow/fixtures/checkpoint/model.ckpt | filecheck %s
// RUN: not graph-opt %S/../../../formats/tensorflow/fixtures/checkpoint/graph.pbtxt 2>&1 | filecheck %s --check-prefix=NO-CHECKPOINT

/// A TF1 graph with resource variables and a Saver checkpoint
/// (make_checkpoint_fixtures.py): frozen, its variables become constants.
// CHECK-LABEL: func.func @main(%x: tensor<2x3xf32> {nn.name = "x"})
// CHECK:         %weights = nn.constant dense<{{\[\[}}2.04091907, {{.*}}> : tensor<3x4xf32>
// CHECK:         %bias = nn.constant dense<[-0.281287432, {{.*}}> : tensor<4xf32>
// CHECK:         %matmul = nn.matmul %x, %weights_read
// CHECK-NOT:     VarHandleOp
// CHECK-NOT:     RestoreV2

/// Without the checkpoint, the variables' values are missing: said in one line.
// NO-CHECKPOINT: error: unsupported TensorFlow ops: VarIsInitializedOp (1); the graph has variables: give their values with --input-checkpoint=PREFIX
