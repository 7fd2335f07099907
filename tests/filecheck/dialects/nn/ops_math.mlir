// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

// CHECK-LABEL: func.func @comparisons
func.func @comparisons(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
  // CHECK: nn.equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = nn.equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: nn.not_equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = nn.not_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: nn.greater %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = nn.greater %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: nn.greater_equal
  %3 = nn.greater_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: nn.less
  %4 = nn.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: nn.less_equal
  %5 = nn.less_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  func.return %0, %1, %2, %3, %4, %5 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}

// CHECK-LABEL: func.func @logical_and_select
func.func @logical_and_select(%p: tensor<2x1xi1>, %q: tensor<3xi1>, %x: tensor<3xi32>, %y: tensor<2x1xi32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x1xi1>, tensor<2x3xi32>) {
  // CHECK: nn.logical_and %{{.*}}, %{{.*}} : (tensor<2x1xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %0 = nn.logical_and %p, %q : (tensor<2x1xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // CHECK: nn.logical_or
  %1 = nn.logical_or %p, %q : (tensor<2x1xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // CHECK: nn.logical_xor
  %2 = nn.logical_xor %p, %q : (tensor<2x1xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // CHECK: nn.logical_not %{{.*}} : (tensor<2x1xi1>) -> tensor<2x1xi1>
  %3 = nn.logical_not %p : (tensor<2x1xi1>) -> tensor<2x1xi1>
  // CHECK: nn.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x1xi1>, tensor<3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  %4 = nn.select %p, %x, %y : (tensor<2x1xi1>, tensor<3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  func.return %0, %1, %2, %3, %4 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x1xi1>, tensor<2x3xi32>
}

// CHECK-LABEL: func.func @unary_math
func.func @unary_math(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: nn.sin %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %0 = nn.sin %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.cos
  %1 = nn.cos %0 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.tan
  %2 = nn.tan %1 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.asin
  %3 = nn.asin %2 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.acos
  %4 = nn.acos %3 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.atan
  %5 = nn.atan %4 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.sinh
  %6 = nn.sinh %5 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.cosh
  %7 = nn.cosh %6 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.asinh
  %8 = nn.asinh %7 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.acosh
  %9 = nn.acosh %8 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.atanh
  %10 = nn.atanh %9 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.floor
  %11 = nn.floor %10 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.ceil
  %12 = nn.ceil %11 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.round
  %13 = nn.round %12 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.sign
  %14 = nn.sign %13 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.log1p
  %15 = nn.log1p %14 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.expm1
  %16 = nn.expm1 %15 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.softplus
  %17 = nn.softplus %16 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.softsign
  %18 = nn.softsign %17 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: nn.hard_swish
  %19 = nn.hard_swish %18 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %19 : tensor<4xf32>
}

// CHECK-LABEL: func.func @activations_with_parameters
func.func @activations_with_parameters(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: nn.elu %{{.*}} {alpha = 5.000000e-01 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %0 = nn.elu %x {alpha = 0.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: nn.selu %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.selu %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: nn.hard_sigmoid %{{.*}} {alpha = 1.000000e-01 : f32, beta = 2.500000e-01 : f32}
  %2 = nn.hard_sigmoid %x {alpha = 0.1 : f32, beta = 0.25 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @float_tests
func.func @float_tests(%x: tensor<2x?xf16>) -> (tensor<2x?xi1>, tensor<2x?xi1>, tensor<2x?xi1>) {
  // CHECK: nn.is_nan %{{.*}} : (tensor<2x?xf16>) -> tensor<2x?xi1>
  %0 = nn.is_nan %x : (tensor<2x?xf16>) -> tensor<2x?xi1>
  // CHECK: nn.is_inf %{{.*}} : (tensor<2x?xf16>) -> tensor<2x?xi1>
  %1 = nn.is_inf %x : (tensor<2x?xf16>) -> tensor<2x?xi1>
  // CHECK: nn.is_finite %{{.*}} : (tensor<2x?xf16>) -> tensor<2x?xi1>
  %2 = nn.is_finite %x : (tensor<2x?xf16>) -> tensor<2x?xi1>
  func.return %0, %1, %2 : tensor<2x?xi1>, tensor<2x?xi1>, tensor<2x?xi1>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>, %p: tensor<2x3xi1>) -> (tensor<2x1x4xf32>, tensor<2xi1>, tensor<i1>) {
  // CHECK: nn.reduce_prod %{{.*}} {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %0 = nn.reduce_prod %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: nn.reduce_any %{{.*}} {axes = array<i64: -1>, keepdims = 0 : i64} : (tensor<2x3xi1>) -> tensor<2xi1>
  %1 = nn.reduce_any %p {axes = array<i64: -1>, keepdims = 0 : i64} : (tensor<2x3xi1>) -> tensor<2xi1>
  // CHECK: nn.reduce_all %{{.*}} {keepdims = 0 : i64} : (tensor<2x3xi1>) -> tensor<i1>
  %2 = nn.reduce_all %p {keepdims = 0 : i64} : (tensor<2x3xi1>) -> tensor<i1>
  func.return %0, %1, %2 : tensor<2x1x4xf32>, tensor<2xi1>, tensor<i1>
}

// CHECK-LABEL: func.func @arg_reductions
func.func @arg_reductions(%x: tensor<2x3x4xf32>) -> (tensor<1x3x4xi64>, tensor<2x3xi32>) {
  // CHECK: nn.argmax %{{.*}} : (tensor<2x3x4xf32>) -> tensor<1x3x4xi64>
  %0 = nn.argmax %x : (tensor<2x3x4xf32>) -> tensor<1x3x4xi64>
  // CHECK: nn.argmin %{{.*}} {axis = -1 : i64, keepdims = 0 : i64, select_last_index = 1 : i64, output_type = i32} : (tensor<2x3x4xf32>) -> tensor<2x3xi32>
  %1 = nn.argmin %x {axis = -1 : i64, keepdims = 0 : i64, select_last_index = 1 : i64, output_type = i32} : (tensor<2x3x4xf32>) -> tensor<2x3xi32>
  /// ONNX's scan from the first element (a leading NaN wins)
  // CHECK: nn.argmax %{{.*}} {scan_from_first} : (tensor<2x3x4xf32>) -> tensor<1x3x4xi64>
  %2 = nn.argmax %x {scan_from_first} : (tensor<2x3x4xf32>) -> tensor<1x3x4xi64>
  func.return %0, %1 : tensor<1x3x4xi64>, tensor<2x3xi32>
}

// CHECK-LABEL: func.func @nonzero
func.func @nonzero(%p: tensor<2x3xi1>) -> tensor<2x?xi64> {
  // CHECK: nn.nonzero %{{.*}} : (tensor<2x3xi1>) -> tensor<2x?xi64>
  %0 = nn.nonzero %p : (tensor<2x3xi1>) -> tensor<2x?xi64>
  func.return %0 : tensor<2x?xi64>
}

// CHECK-LABEL: func.func @mod_mish
func.func @mod_mish(%a: tensor<2x3xi32>, %b: tensor<3xi32>, %x: tensor<3xf32>) -> (tensor<2x3xi32>, tensor<3xf32>) {
  // CHECK: nn.mod %{{.*}}, %{{.*}} {fmod = 1 : i64} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %0 = nn.mod %a, %b {fmod = 1 : i64} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK: nn.mish %{{.*}} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = nn.mish %x : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0, %1 : tensor<2x3xi32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @cumsum
func.func @cumsum(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: nn.cumsum %{{.*}} {axis = -1 : i64, exclusive = 1 : i64, reverse = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = nn.cumsum %x {axis = -1 : i64, exclusive = 1 : i64, reverse = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
