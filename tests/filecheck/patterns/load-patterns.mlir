// RUN: graph-opt %s --split-input-file --load-patterns %inputs/patterns/user_patterns.py -p 'partition-pattern{pattern=relu-add}' | filecheck %s
// RUN: graph-opt %s --split-input-file --load-patterns %inputs/patterns/user_patterns.py -p 'quantize{patterns=bare-conv}' | filecheck %s --check-prefix=QUANT
// RUN: not graph-opt %s --load-patterns %inputs/patterns/broken_patterns.py 2>&1 | filecheck %s --check-prefix=BROKEN
// RUN: not graph-opt %s --load-patterns %inputs/patterns/no_such_file.py 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not graph-opt %s --split-input-file -p 'quantize{patterns=nope}' 2>&1 | filecheck %s --check-prefix=UNKNOWN

/// A user pattern (relu + add) drives partition-pattern as TVM's BYOC
/// tables do; quantize{patterns=bare-conv} takes the conv alone as the
/// layer: its output is fake-quantized before the relu, not after it.
// CHECK-LABEL: func.func @conv_relu_add
// CHECK:         func.call @relu_add_0(
// CHECK:       func.func private @relu_add_0({{.*}}) {{.*}} attributes {composite = "relu-add", PartitionedFromPattern = "nn.relu_nn.add_"}
// QUANT-LABEL: func.func @conv_relu_add
// QUANT:         %[[WQ:.*]] = nn.fake_quant %w {{.*}}narrow_range = 1
// QUANT-NEXT:    %[[C:.*]] = nn.conv %x, %[[WQ]]
// QUANT-NEXT:    %[[CQ:.*]] = nn.fake_quant %[[C]] {min = array<f32: -1.000000e+00>, max = array<f32: 3.500000e+00>
// QUANT-NEXT:    nn.relu %[[CQ]]
// QUANT-NOT:     nn.fake_quant
// QUANT:         func.return
// BROKEN: graph-opt: error: --load-patterns {{.*}}broken_patterns.py: RuntimeError: this pattern module is broken
// BROKEN-NOT: Traceback
// MISSING: graph-opt: error: --load-patterns {{.*}}no_such_file.py: no such file
// UNKNOWN: quantize: unknown pattern 'nope'; known patterns:
func.func @conv_relu_add(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = nn.constant dense<[[[[0.5]], [[0.25]]], [[[1.0]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %c = nn.conv %x, %w {nn.range = array<f32: -1.0, 3.5>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = nn.relu %c {nn.range = array<f32: 0.0, 3.5>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a = nn.add %r, %x {nn.range = array<f32: 0.0, 5.0>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %a : tensor<1x2x4x4xf32>
}

// -----

/// negative: no relu feeds an add, so nothing is partitioned (a warning
/// says so), and no conv: quantize{patterns=bare-conv} leaves it float.
// CHECK-LABEL: func.func @negative_no_match
// CHECK-NOT:     func.call
// QUANT-LABEL: func.func @negative_no_match
// QUANT-NOT:     nn.fake_quant
func.func @negative_no_match(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = nn.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %a = nn.add %t, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}
