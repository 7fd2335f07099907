// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s
func.func @range_not_scalar(%x: tensor<4xf32>, %lo: tensor<2xf32>, %hi: tensor<f32>) -> tensor<4xf32> {
  %0 = nn.fake_quant_vars %x, %lo, %hi {num_bits = 8 : i64} : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: min must be a scalar, got [2]

// -----

func.func @bits(%g: tensor<4xf32>, %x: tensor<4xf32>, %lo: tensor<f32>) -> tensor<4xf32> {
  %0 = nn.fake_quant_vars_grad %g, %x, %lo, %lo {num_bits = 1 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: num_bits must be in [2, 16], got 1

// -----

func.func @integer_input(%x: tensor<4xi32>, %lo: tensor<f32>) -> tensor<4xi32> {
  %0 = nn.fake_quant_vars %x, %lo, %lo {num_bits = 8 : i64} : (tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}
// CHECK: nn.fake_quant_vars needs a float tensor, got tensor<4xi32>
