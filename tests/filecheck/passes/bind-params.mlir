// RUN: python -c "import numpy as np; np.savez('%t.npz', w=np.full((4, 3, 3, 3), 0.5, np.float32), b=np.ones((4, 1, 1), np.float32))"
// RUN: graph-opt %s --split-input-file -p 'bind-params{file="%t.npz"}' | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'bind-params{file="%t.npz"},partition-pattern{pattern=conv-bias-relu}' | filecheck %s --check-prefix=PART
// RUN: graph-opt %s --split-input-file -p 'bind-params{file="%t.npz" names=w}' | filecheck %s --check-prefix=ONLYW

// RUN: python -c "import numpy as np; np.savez('%t-f64.npz', w=np.zeros((4, 3, 3, 3)))"
// RUN: not graph-opt %s --split-input-file -p 'bind-params{file="%t-f64.npz"}' 2>&1 | filecheck %s --check-prefix=DTYPE
// RUN: python -c "import numpy as np; np.savez('%t-shape.npz', w=np.zeros((4, 3, 2, 2), np.float32))"
// RUN: not graph-opt %s --split-input-file -p 'bind-params{file="%t-shape.npz"}' 2>&1 | filecheck %s --check-prefix=SHAPE
// RUN: python -c "import numpy as np; np.savez('%t-unknown.npz', weight=np.zeros(1, np.float32))"
// RUN: not graph-opt %s --split-input-file -p 'bind-params{file="%t-unknown.npz"}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not graph-opt %s --split-input-file -p 'bind-params{file="%t.npz" names=z}' 2>&1 | filecheck %s --check-prefix=NOARRAY
// RUN: not graph-opt %s --split-input-file -p 'bind-params{file="%t-missing.npz"}' 2>&1 | filecheck %s --check-prefix=NOFILE

/// Weights passed as arguments: bound by name, they leave the signature as
/// constants, and the conv-bias-relu pattern (is_constant() weight and bias) matches.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%x: tensor<1x3x8x8xf32> {nn.name = "x"}) -> tensor<1x4x6x6xf32>
// CHECK-DAG:     %[[B:.*]] = nn.constant dense<1.000000e+00> : tensor<4x1x1xf32>
// CHECK-DAG:     %[[W:.*]] = nn.constant dense<5.000000e-01> : tensor<4x3x3x3xf32>
// CHECK:         %[[CONV:.*]] = nn.conv %x, %[[W]]
// CHECK:         nn.add %[[CONV]], %[[B]]
// PART-LABEL:  func.func @main
// PART:          func.call @conv_bias_relu_0(%x,
// PART:        func.func private @conv_bias_relu_0
/// names=w binds w only: b stays an argument.
// ONLYW-LABEL: func.func @main
// ONLYW-SAME:    (%x: tensor<1x3x8x8xf32> {nn.name = "x"}, %b: tensor<4x1x1xf32> {nn.name = "b"})
// ONLYW:         nn.constant dense<5.000000e-01> : tensor<4x3x3x3xf32>
// DTYPE: error: {{.*}}bind-params: argument 'w' is tensor<4x3x3x3xf32>; the array is float64, not float32
// SHAPE: error: {{.*}}bind-params: argument 'w' is tensor<4x3x3x3xf32>; the array's shape is [4, 3, 2, 2]
// UNKNOWN: error: {{.*}}bind-params: @main has no argument named 'weight' (its arguments: x, w, b)
// NOARRAY: error: {{.*}}bind-params: {{.*}}.npz has no array z (it has w, b)
// NOFILE: error: {{.*}}bind-params: cannot read {{.*}}-missing.npz
func.func @main(%x: tensor<1x3x8x8xf32> {nn.name = "x"}, %w: tensor<4x3x3x3xf32> {nn.name = "w"}, %b: tensor<4x1x1xf32> {nn.name = "b"}) -> tensor<1x4x6x6xf32> {
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %bias = nn.add %conv, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %relu = nn.relu %bias : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %relu : tensor<1x4x6x6xf32>
}

// -----

/// The bound bias reaches the add through a relu: no constant there (until
/// fold-constants), so the pattern does not match.
// CHECK-LABEL: func.func @negative_bias_through_relu
// CHECK-SAME:    (%x: tensor<1x3x8x8xf32> {nn.name = "x"}) -> tensor<1x4x6x6xf32>
// PART-LABEL:  func.func @negative_bias_through_relu
// PART-NOT:      func.call
// ONLYW-LABEL: func.func @negative_bias_through_relu
func.func @negative_bias_through_relu(%x: tensor<1x3x8x8xf32> {nn.name = "x"}, %w: tensor<4x3x3x3xf32> {nn.name = "w"}, %b: tensor<4x1x1xf32> {nn.name = "b"}) -> tensor<1x4x6x6xf32> {
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %positive = nn.relu %b : (tensor<4x1x1xf32>) -> tensor<4x1x1xf32>
  %sum = nn.add %conv, %positive : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  func.return %sum : tensor<1x4x6x6xf32>
}
