// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

// CHECK-LABEL: func.func @fake_quant_vars
// CHECK: %q = nn.fake_quant_vars %x, %lo, %hi {num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK: %g = nn.fake_quant_vars_grad %dy, %x, %lo, %hi {num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
func.func @fake_quant_vars(%x: tensor<2x3xf32>, %dy: tensor<2x3xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x3xf32> {
  %q = nn.fake_quant_vars %x, %lo, %hi {num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  %g = nn.fake_quant_vars_grad %dy, %x, %lo, %hi {num_bits = 8 : i64, narrow_range = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  %s = nn.add %q, %g : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %s : tensor<2x3xf32>
}
