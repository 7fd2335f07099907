// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// TOSA has greater, greater_equal and equal: less swaps the operands, not_equal
/// negates equal; operands are brought to equal rank. Results are i1.
// CHECK-LABEL: func.func @comparisons
func.func @comparisons(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
  // CHECK: %[[Y:.*]] = tosa.reshape %y, %{{.*}} -> tensor<1x3xf32>
  // CHECK: %[[LT:.*]] = tosa.greater %[[Y]], %x : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %lt = nn.less %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: %[[LE:.*]] = tosa.greater_equal %{{.*}}, %x
  %le = nn.less_equal %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: %[[EQ:.*]] = tosa.equal %x, %{{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: %[[NE:.*]] = tosa.logical_not %[[EQ]]
  %ne = nn.not_equal %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: %[[GT:.*]] = tosa.greater %x, %{{.*}}
  %gt = nn.greater %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: func.return %[[LT]], %[[LE]], %[[NE]], %[[GT]]
  func.return %lt, %le, %ne, %gt : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func.func @logical_and_select
func.func @logical_and_select(%p: tensor<2x3xi1>, %q: tensor<3xi1>, %x: tensor<2x3xf32>, %y: tensor<f32>) -> (tensor<2x3xi1>, tensor<2x3xf32>) {
  // CHECK: %[[Q:.*]] = tosa.reshape %q, %{{.*}} -> tensor<1x3xi1>
  // CHECK: %[[AND:.*]] = tosa.logical_and %p, %[[Q]]
  %a = nn.logical_and %p, %q : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // CHECK: %[[OR:.*]] = tosa.logical_or %[[AND]], %p
  %o = nn.logical_or %a, %p : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: %[[XOR:.*]] = tosa.logical_xor %[[OR]], %p
  %x2 = nn.logical_xor %o, %p : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: %[[NOT:.*]] = tosa.logical_not %[[XOR]]
  %n = nn.logical_not %x2 : (tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: %[[Y:.*]] = tosa.reshape %y, %{{.*}} -> tensor<1x1xf32>
  // CHECK: %[[SEL:.*]] = tosa.select %[[NOT]], %x, %[[Y]] : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  %s = nn.select %n, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %n, %s : tensor<2x3xi1>, tensor<2x3xf32>
}

// -----

/// Sin, cos, floor, ceil have TOSA ops; the activations TOSA lacks become its arithmetic.
// CHECK-LABEL: func.func @unary_math
func.func @unary_math(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[S:.*]] = tosa.sin %x
  // CHECK-NEXT: %[[C:.*]] = tosa.cos %[[S]]
  // CHECK-NEXT: %[[F:.*]] = tosa.floor %[[C]]
  // CHECK-NEXT: %[[CE:.*]] = tosa.ceil %[[F]]
  %s = nn.sin %x : (tensor<4xf32>) -> tensor<4xf32>
  %c = nn.cos %s : (tensor<4xf32>) -> tensor<4xf32>
  %f = nn.floor %c : (tensor<4xf32>) -> tensor<4xf32>
  %ce = nn.ceil %f : (tensor<4xf32>) -> tensor<4xf32>
  /// elu: select(x > 0, x, alpha * (exp(x) - 1))
  // CHECK: %[[POS:.*]] = tosa.greater %[[CE]], %{{.*}}
  // CHECK: %[[EXP:.*]] = tosa.exp %[[CE]]
  // CHECK: %[[ELU:.*]] = tosa.select %[[POS]], %[[CE]], %{{.*}}
  %e = nn.elu %ce : (tensor<4xf32>) -> tensor<4xf32>
  /// hard_swish: x * clamp(x / 6 + 1/2, 0, 1)
  // CHECK: %[[HS:.*]] = tosa.clamp %{{.*}} {min_val = 0.000000e+00 : f32, max_val = 1.000000e+00 : f32}
  // CHECK: tosa.mul %[[ELU]], %[[HS]]
  %h = nn.hard_swish %e : (tensor<4xf32>) -> tensor<4xf32>
  /// mish: x * tanh(softplus(x)), softplus as max(x, 0) + log(1 + exp(-|x|))
  // CHECK: tosa.log
  // CHECK: tosa.maximum
  // CHECK-NEXT: %[[SP:.*]] = tosa.add
  // CHECK-NEXT: %[[T:.*]] = tosa.tanh %[[SP]]
  // CHECK: tosa.mul %{{.*}}, %[[T]], %{{.*}}
  %m = nn.mish %h : (tensor<4xf32>) -> tensor<4xf32>
  func.return %m : tensor<4xf32>
}

// -----

/// Reductions per axis; argmin is argmax of -x, its i32 indices reshaped to
/// keep the axis; without scan_from_first (TensorFlow) NaN and the lowest
/// finite value (the scan's start) become -inf.
// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3xf32>, %p: tensor<2x3xi1>) -> (tensor<2xf32>, tensor<1x1xi1>, tensor<2x1xi32>) {
  // CHECK: tosa.reduce_product %x {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %r = nn.reduce_prod %x {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK: %[[A0:.*]] = tosa.reduce_all %p {axis = 0 : i32} : (tensor<2x3xi1>) -> tensor<1x3xi1>
  // CHECK-NEXT: tosa.reduce_all %[[A0]] {axis = 1 : i32} : (tensor<1x3xi1>) -> tensor<1x1xi1>
  %a = nn.reduce_all %p : (tensor<2x3xi1>) -> tensor<1x1xi1>
  // CHECK: %[[NEG:.*]] = tosa.negate %x
  // CHECK-NEXT: %[[LOW:.*]] = "tosa.const"() <{values = dense<-3.40282347e+38> : tensor<1x1xf32>}>
  // CHECK-NEXT: %[[BEYOND:.*]] = tosa.greater %[[NEG]], %[[LOW]]
  // CHECK-NEXT: %[[INF:.*]] = "tosa.const"() <{values = dense<0xff800000> : tensor<1x1xf32>}>
  // CHECK-NEXT: %[[C:.*]] = tosa.select %[[BEYOND]], %[[NEG]], %[[INF]]
  // CHECK-NEXT: %[[ARG:.*]] = tosa.argmax %[[C]] {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2xi32>
  // CHECK: tosa.reshape %[[ARG]], %{{.*}} -> tensor<2x1xi32>
  %m = nn.argmin %x {axis = 1 : i64, output_type = i32} : (tensor<2x3xf32>) -> tensor<2x1xi32>
  func.return %r, %a, %m : tensor<2xf32>, tensor<1x1xi1>, tensor<2x1xi32>
}

// -----

/// i64 indices (ONNX's ArgMax) are TOSA's i32 ones cast; i64 compares as IREE accepts it.
// CHECK-LABEL: func.func @argmax_i64_and_compare_i64
func.func @argmax_i64_and_compare_i64(%x: tensor<2x3xf32>, %n: tensor<3xi64>) -> (tensor<1x3xi64>, tensor<3xi1>) {
  // CHECK: %[[A:.*]] = tosa.argmax %{{.*}} {axis = 0 : i32} : (tensor<2x3xf32>) -> tensor<3xi32>
  // CHECK: %[[R:.*]] = tosa.reshape %[[A]], %{{.*}} -> tensor<1x3xi32>
  // CHECK: %[[C:.*]] = tosa.cast %[[R]] : (tensor<1x3xi32>) -> tensor<1x3xi64>
  %m = nn.argmax %x : (tensor<2x3xf32>) -> tensor<1x3xi64>
  // CHECK: tosa.greater %n, %n : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %g = nn.greater %n, %n : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  func.return %m, %g : tensor<1x3xi64>, tensor<3xi1>
}

// -----

/// scan_from_first (ONNX): NaN becomes -inf, a leading NaN +inf (it wins);
/// the lowest finite value stays (the scan starts at the first element).
// CHECK-LABEL: func.func @argmax_scan_from_first
func.func @argmax_scan_from_first(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  // CHECK: %[[NUM:.*]] = tosa.equal %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: %[[FILL:.*]] = "tosa.const"() <{values = dense<{{\[\[}}0x7f800000, 0xff800000, 0xff800000]]> : tensor<1x3xf32>}>
  // CHECK-NEXT: %[[C:.*]] = tosa.select %[[NUM]], %x, %[[FILL]] : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: tosa.argmax %[[C]] {axis = 1 : i32}
  %m = nn.argmax %x {axis = 1 : i64, keepdims = 0 : i64, scan_from_first} : (tensor<2x3xf32>) -> tensor<2xi64>
  func.return %m : tensor<2xi64>
}

// -----

/// bfloat16's lowest finite value (numpy's finfo has no bfloat16).
// CHECK-LABEL: func.func @argmax_bf16
func.func @argmax_bf16(%x: tensor<2x3xbf16>) -> tensor<2xi32> {
  // CHECK: "tosa.const"() <{values = dense<-3.389530e+38> : tensor<1x1xbf16>}>
  // CHECK: tosa.argmax %{{.*}} {axis = 1 : i32} : (tensor<2x3xbf16>) -> tensor<2xi32>
  %m = nn.argmax %x {axis = 1 : i64, keepdims = 0 : i64, output_type = i32} : (tensor<2x3xbf16>) -> tensor<2xi32>
  func.return %m : tensor<2xi32>
}

// -----

func.func @negative_compare_i8(%x: tensor<3xi8>) -> tensor<3xi1> {
  %m = nn.equal %x, %x : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi1>
  func.return %m : tensor<3xi1>
}
// CHECK: lower-to-tosa: cannot lower nn.equal at {{.*}}: TOSA compares floats, i32 and i64 only

// -----

/// is_nan is x != x (NaN is the one value unequal to itself); is_inf compares |x|
/// with +inf, is_finite is |x| < inf.
// CHECK-LABEL: func.func @float_tests
func.func @float_tests(%x: tensor<2x3xf32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
  // CHECK: %[[EQ:.*]] = tosa.equal %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: %[[NAN:.*]] = tosa.logical_not %[[EQ]]
  // CHECK: %[[ABS:.*]] = tosa.abs %x
  // CHECK: %[[INF:.*]] = "tosa.const"() <{values = dense<0x7f800000> : tensor<1x1xf32>}>
  // CHECK: %[[ISINF:.*]] = tosa.equal %[[ABS]], %[[INF]]
  // CHECK: %[[FIN:.*]] = tosa.greater %{{.*}}, %{{.*}} : (tensor<1x1xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: func.return %[[NAN]], %[[ISINF]], %[[FIN]]
  %n = nn.is_nan %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %i = nn.is_inf %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %f = nn.is_finite %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return %n, %i, %f : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}
