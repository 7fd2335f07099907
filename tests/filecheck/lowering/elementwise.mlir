// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// Operands of lower rank are reshaped to the result's rank (TOSA broadcasts only size-1 dims);
/// tosa.mul takes a shift operand (0 for floats).
// CHECK-LABEL: func.func @binary_broadcast
func.func @binary_broadcast(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[Y:.*]] = tosa.reshape %y, %{{.*}} -> tensor<1x3xf32>
  // CHECK: %[[A:.*]] = tosa.add %x, %[[Y]] : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  // CHECK: %[[S:.*]] = tosa.sub %[[A]], %x
  // CHECK: %[[SH:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>
  // CHECK: %[[M:.*]] = tosa.mul %[[S]], %x, %[[SH]]
  // CHECK: %[[MX:.*]] = tosa.maximum %[[M]], %x
  // CHECK: %[[MN:.*]] = tosa.minimum %[[MX]], %x
  // CHECK: %[[P:.*]] = tosa.pow %[[MN]], %x
  // CHECK: func.return %[[P]]
  %a = nn.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %s = nn.sub %a, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = nn.mul %s, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %mx = nn.max %m, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %mn = nn.min %mx, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %p = nn.pow %mn, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %p : tensor<2x3xf32>
}

// -----

/// TOSA has no float division: x * reciprocal(y).
// CHECK-LABEL: func.func @div
func.func @div(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[R:.*]] = tosa.reciprocal %y
  // CHECK: %[[D:.*]] = tosa.mul %x, %[[R]], %{{.*}}
  // CHECK: func.return %[[D]]
  %d = nn.div %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[E:.*]] = tosa.exp %x
  // CHECK: %[[L:.*]] = tosa.log %[[E]]
  // CHECK: %[[T:.*]] = tosa.tanh %[[L]]
  // CHECK: %[[S:.*]] = tosa.sigmoid %[[T]]
  // CHECK: %[[A:.*]] = tosa.abs %[[S]]
  // CHECK: %[[RC:.*]] = tosa.reciprocal %[[A]]
  // CHECK: %[[ER:.*]] = tosa.erf %[[RC]]
  // CHECK: %[[RS:.*]] = tosa.rsqrt %[[ER]]
  // CHECK: %[[SQ:.*]] = tosa.reciprocal %[[RS]]
  // CHECK: %[[ZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}>
  // CHECK: %[[N:.*]] = tosa.negate %[[SQ]], %[[ZP]], %[[ZP]]
  // CHECK: func.return %[[N]]
  %e = nn.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %l = nn.log %e : (tensor<4xf32>) -> tensor<4xf32>
  %t = nn.tanh %l : (tensor<4xf32>) -> tensor<4xf32>
  %s = nn.sigmoid %t : (tensor<4xf32>) -> tensor<4xf32>
  %a = nn.abs %s : (tensor<4xf32>) -> tensor<4xf32>
  %r = nn.reciprocal %a : (tensor<4xf32>) -> tensor<4xf32>
  %er = nn.erf %r : (tensor<4xf32>) -> tensor<4xf32>
  %sq = nn.sqrt %er : (tensor<4xf32>) -> tensor<4xf32>
  %n = nn.neg %sq : (tensor<4xf32>) -> tensor<4xf32>
  func.return %n : tensor<4xf32>
}

// -----

/// relu and clip become tosa.clamp; a missing bound is the type's largest finite value.
// CHECK-LABEL: func.func @relu_clip
func.func @relu_clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[R:.*]] = tosa.clamp %x {min_val = 0.000000e+00 : f32, max_val = 3.40282347e+38 : f32}
  // CHECK: %[[C:.*]] = tosa.clamp %[[R]] {min_val = -3.40282347e+38 : f32, max_val = 2.500000e+00 : f32}
  // CHECK: func.return %[[C]]
  %r = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %c = nn.clip %r {max = 2.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

/// leaky_relu: select(x >= 0, x, alpha * x).
// CHECK-LABEL: func.func @leaky_relu
func.func @leaky_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[GE:.*]] = tosa.greater_equal %x, %{{.*}} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xi1>
  // CHECK: %[[AX:.*]] = tosa.mul %x
  // CHECK: %[[Y:.*]] = tosa.select %[[GE]], %x, %[[AX]]
  // CHECK: func.return %[[Y]]
  %y = nn.leaky_relu %x {alpha = 0.1 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

/// gelu: 0.5 x (1 + erf(x / sqrt 2)); the tanh approximation uses tosa.tanh.
// CHECK-LABEL: func.func @gelu
func.func @gelu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: tosa.erf
  // CHECK: tosa.tanh
  %e = nn.gelu %x : (tensor<4xf32>) -> tensor<4xf32>
  %t = nn.gelu %x {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %e, %t : tensor<4xf32>, tensor<4xf32>
}

// -----

/// Identity, stop_gradient and inference dropout forward their input.
// CHECK-LABEL: func.func @forwarded
func.func @forwarded(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: func.return %x
  %i = nn.identity %x : (tensor<4xf32>) -> tensor<4xf32>
  %s = nn.stop_gradient %i : (tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// -----

/// convert-to-int's integer ops: i32 adds of rescaled inputs, int8 clamps at integer levels.
// CHECK-LABEL: func.func @integer_add_and_clamp
func.func @integer_add_and_clamp(%x: tensor<4xi32>, %q: tensor<4xi8>) -> (tensor<4xi32>, tensor<4xi8>, tensor<4xi8>) {
  // CHECK-NEXT: %[[SUM:.*]] = tosa.add %x, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %y = nn.add %x, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK-NEXT: %[[CLAMP:.*]] = tosa.clamp %q {min_val = -3 : i8, max_val = 127 : i8} : (tensor<4xi8>) -> tensor<4xi8>
  %c = nn.clip %q {min = -3.0 : f32, max = 127.0 : f32} : (tensor<4xi8>) -> tensor<4xi8>
  // CHECK-NEXT: %[[RELU:.*]] = tosa.clamp %q {min_val = 0 : i8, max_val = 127 : i8} : (tensor<4xi8>) -> tensor<4xi8>
  %r = nn.clip %q {min = 0.0 : f32} : (tensor<4xi8>) -> tensor<4xi8>
  func.return %y, %c, %r : tensor<4xi32>, tensor<4xi8>, tensor<4xi8>
}

// -----

/// Index arithmetic (batch * count + index) on i32 or i64: tosa.mul with shift 0, maximum.
// CHECK-LABEL: func.func @integer_index_arithmetic
func.func @integer_index_arithmetic(%x: tensor<4xi64>, %n: tensor<4xi32>) -> (tensor<4xi64>, tensor<4xi32>) {
  // CHECK: %[[S:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>
  // CHECK: tosa.mul %x, %x, %[[S]] : (tensor<4xi64>, tensor<4xi64>, tensor<1xi8>) -> tensor<4xi64>
  %y = nn.mul %x, %x : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: tosa.maximum %n, %n : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %m = nn.max %n, %n : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %y, %m : tensor<4xi64>, tensor<4xi32>
}

// -----

/// An i8 product would need TOSA's widening to i32 and a rescale back.
func.func @negative_integer_mul(%x: tensor<4xi8>) -> tensor<4xi8> {
  %y = nn.mul %x, %x : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  func.return %y : tensor<4xi8>
}
// CHECK: cannot lower nn.mul at {{.*}}: integer elementwise ops lower only through nn.rescale
