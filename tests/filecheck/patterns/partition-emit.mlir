// RUN: rm -rf %t && graph-opt %s --split-input-file -p 'partition-pattern{pattern=conv-bias-relu emit-dir="%t"}' | filecheck %s
// RUN: python -c "import os; print(sorted(os.listdir('%t')))" | filecheck %s --check-prefix=FILES
// RUN: graph-opt %t/conv_bias_relu_0.mlir | filecheck %s --check-prefix=PART
// RUN: rm -rf %t-onnx && graph-opt %s --split-input-file -p 'partition-pattern{pattern=conv-bias-relu emit-dir="%t-onnx" format=onnx embed-constants=true}' | filecheck %s --check-prefix=ONNX
// RUN: python -c "import onnx; m = onnx.load('%t-onnx/conv_bias_relu_0.onnx'); onnx.checker.check_model(m, full_check=True); print([n.op_type for n in m.graph.node])" | filecheck %s --check-prefix=ONNX-FILE
// RUN: not graph-opt %s --split-input-file -p 'partition-pattern{pattern=conv-bias-relu emit-dir="%t" format=tflite}' 2>&1 | filecheck %s --check-prefix=FORMAT
// RUN: not graph-opt %s --split-input-file -p 'partition-pattern{pattern=conv-bias-relu emit-dir="%s/dir"}' 2>&1 | filecheck %s --check-prefix=UNWRITABLE

/// BYOC: the partition is written alone to its own file; the host keeps a
/// call of a body-less declaration that names the file.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK:         %[[CALL:.*]] = func.call @conv_bias_relu_0(%x, %{{.*}}, %{{.*}})
// CHECK-NEXT:    func.return %[[CALL]]
// CHECK:       func.func private @conv_bias_relu_0(tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
// CHECK-SAME:    nn.external = "conv_bias_relu_0.mlir"
// CHECK-NOT:     nn.conv
// FILES: ['conv_bias_relu_0.mlir']
// PART:        func.func @conv_bias_relu_0(%{{.*}}: tensor<1x3x8x8xf32>, %{{.*}}: tensor<4x3x3x3xf32>, %{{.*}}: tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
// PART-SAME:     composite = "conv-bias-relu"
// PART-NEXT:     nn.conv
// PART-NEXT:     nn.add
// PART-NEXT:     nn.relu
// PART-NEXT:     func.return
// ONNX-LABEL:  func.func @conv_bias_relu
// ONNX:          func.call @conv_bias_relu_0(%x) :
// ONNX:        func.func private @conv_bias_relu_0(tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
// ONNX-SAME:     nn.external = "conv_bias_relu_0.onnx"
// ONNX-FILE: ['Conv', 'Add', 'Relu']
// FORMAT: error: {{.*}}partition-pattern: format must be one of mlir, onnx, not 'tflite'
// UNWRITABLE: error: {{.*}}partition-pattern: cannot write {{.*}}partition-emit.mlir/dir/conv_bias_relu_0.mlir
func.func @conv_bias_relu(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %w = nn.constant dense<0.25> : tensor<4x3x3x3xf32>
  %b = nn.constant dense<-0.5> : tensor<4x1x1xf32>
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %bias = nn.add %conv, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %relu = nn.relu %bias : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %relu : tensor<1x4x6x6xf32>
}

// -----

/// Nothing matches: no file is written (FILES lists one) and nothing changes.
// CHECK-LABEL: func.func @negative_no_match
// CHECK-NEXT:    nn.relu
// ONNX-LABEL:  func.func @negative_no_match
func.func @negative_no_match(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %relu = nn.relu %x : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %relu : tensor<1x4x6x6xf32>
}
