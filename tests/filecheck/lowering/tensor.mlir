// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// Constants become tosa.const; every reshaping op becomes tosa.reshape to its
/// result shape, with the shape as a tosa.const_shape (the nn shape operand goes away).
// CHECK-LABEL: func.func @constant_and_reshapes
func.func @constant_and_reshapes(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x12xf32>, tensor<1x2x3x4xf32>, tensor<2xf32>) {
  // CHECK: %[[S1:.*]] = "tosa.const_shape"() <{values = dense<[6, 4]> : tensor<2xindex>}> : () -> !tosa.shape<2>
  // CHECK: %[[R:.*]] = tosa.reshape %x, %[[S1]] : (tensor<2x3x4xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  // CHECK: %[[F:.*]] = tosa.reshape %x, %{{.*}} -> tensor<2x12xf32>
  // CHECK: %[[U:.*]] = tosa.reshape %x, %{{.*}} -> tensor<1x2x3x4xf32>
  // CHECK: %[[C:.*]] = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}>
  // CHECK-NOT: nn.
  // CHECK: func.return %[[R]], %[[F]], %[[U]], %[[C]]
  %shape = nn.constant dense<[6, 4]> : tensor<2xi64>
  %r = nn.reshape %x, %shape : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %f = nn.flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %u = nn.unsqueeze %x {axes = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %c = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  func.return %r, %f, %u, %c : tensor<6x4xf32>, tensor<2x12xf32>, tensor<1x2x3x4xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_concat
func.func @transpose_concat(%x: tensor<2x3xf32>, %y: tensor<2x5xf32>) -> (tensor<3x2xf32>, tensor<2x8xf32>) {
  // CHECK: %[[T:.*]] = tosa.transpose %x {perms = array<i32: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: %[[C:.*]] = tosa.concat %x, %y {axis = 1 : i32} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  // CHECK: func.return %[[T]], %[[C]]
  %t = nn.transpose %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %c = nn.concat %x, %y {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  func.return %t, %c : tensor<3x2xf32>, tensor<2x8xf32>
}

// -----

/// nn.pad's [begins..., ends...] become TOSA's interleaved [begin, end] per dim.
// CHECK-LABEL: func.func @constant_pad
func.func @constant_pad(%x: tensor<2x3xf32>) -> tensor<3x6xf32> {
  // CHECK-DAG: %[[P:.*]] = "tosa.const_shape"() <{values = dense<[1, 0, 2, 1]> : tensor<4xindex>}>
  // CHECK-DAG: %[[V:.*]] = "tosa.const"() <{values = dense<1.500000e+00> : tensor<1xf32>}>
  // CHECK: tosa.pad %x, %[[P]], %[[V]] : (tensor<2x3xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<3x6xf32>
  %y = nn.pad %x {pads = array<i64: 1, 2, 0, 1>, value = 1.5 : f32} : (tensor<2x3xf32>) -> tensor<3x6xf32>
  func.return %y : tensor<3x6xf32>
}

// -----

/// One TOSA reduction per axis (dims kept), a reshape drops them; mean scales the sum.
// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<2xf32>, tensor<2x3x1xf32>) {
  // CHECK: %[[S1:.*]] = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: %[[S2:.*]] = tosa.reduce_sum %[[S1]] {axis = 2 : i32} : (tensor<2x1x4xf32>) -> tensor<2x1x1xf32>
  // CHECK: %[[F:.*]] = "tosa.const"() <{values = dense<0.0833333358> : tensor<1x1x1xf32>}>
  // CHECK: %[[M:.*]] = tosa.mul %[[S2]], %[[F]]
  // CHECK: %[[R:.*]] = tosa.reshape %[[M]], %{{.*}} -> tensor<2xf32>
  // CHECK: %[[MX:.*]] = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK: func.return %[[R]], %[[MX]]
  %m = nn.reduce_mean %x {axes = array<i64: 1, 2>, keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  %mx = nn.reduce_max %x {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  func.return %m, %mx : tensor<2xf32>, tensor<2x3x1xf32>
}

// -----

/// softmax: exp(x - max) * reciprocal(sum(exp(x - max))).
// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // CHECK: %[[MX:.*]] = tosa.reduce_max %x {axis = 1 : i32}
  // CHECK: %[[D:.*]] = tosa.sub %x, %[[MX]]
  // CHECK: %[[E:.*]] = tosa.exp %[[D]]
  // CHECK: %[[S:.*]] = tosa.reduce_sum %[[E]] {axis = 1 : i32}
  // CHECK: %[[R:.*]] = tosa.reciprocal %[[S]]
  // CHECK: %[[Y:.*]] = tosa.mul %[[E]], %[[R]]
  // CHECK: func.return %[[Y]]
  %y = nn.softmax %x : (tensor<2x5xf32>) -> tensor<2x5xf32>
  func.return %y : tensor<2x5xf32>
}

// -----

/// Reflect and edge pads: single-row slices concatenated around the input, mirrored
/// (x[2], x[1] | x | x[2]) or repeated (x[0] | x | x[3], x[3]).
// CHECK-LABEL: func.func @reflect_and_edge_pads
func.func @reflect_and_edge_pads(%x: tensor<4xf32>) -> (tensor<7xf32>, tensor<7xf32>) {
  // CHECK: %[[R2:.*]] = tosa.slice %x, %[[S2:.*]], %{{.*}} : (tensor<4xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<1xf32>
  // CHECK: %[[R1:.*]] = tosa.slice %x
  // CHECK: %[[R2B:.*]] = tosa.slice %x
  // CHECK: %[[R:.*]] = tosa.concat %[[R2]], %[[R1]], %x, %[[R2B]] {axis = 0 : i32} : ({{.*}}) -> tensor<7xf32>
  // CHECK: %[[E:.*]] = tosa.concat %{{.*}}, %x, %{{.*}}, %{{.*}} {axis = 0 : i32} : ({{.*}}) -> tensor<7xf32>
  // CHECK: func.return %[[R]], %[[E]]
  %r = nn.pad %x {pads = array<i64: 2, 1>, mode = "reflect"} : (tensor<4xf32>) -> tensor<7xf32>
  %e = nn.pad %x {pads = array<i64: 1, 2>, mode = "edge"} : (tensor<4xf32>) -> tensor<7xf32>
  func.return %r, %e : tensor<7xf32>, tensor<7xf32>
}

// -----

func.func @negative_cropping_pad(%x: tensor<4xf32>) -> tensor<3xf32> {
  %y = nn.pad %x {pads = array<i64: -1, 0>} : (tensor<4xf32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
// CHECK: cannot lower nn.pad at {{.*}}: TOSA pads cannot crop (negative pads)

// -----

/// Integer sum, max and min of i32 (and i64, which IREE accepts) are TOSA's.
// CHECK-LABEL: func.func @integer_reductions
func.func @integer_reductions(%x: tensor<2x4xi32>, %y: tensor<2x4xi64>) -> (tensor<1x4xi32>, tensor<2xi64>) {
  // CHECK: tosa.reduce_sum %x {axis = 0 : i32} : (tensor<2x4xi32>) -> tensor<1x4xi32>
  %s = nn.reduce_sum %x {axes = array<i64: 0>} : (tensor<2x4xi32>) -> tensor<1x4xi32>
  // CHECK: tosa.reduce_max %y {axis = 1 : i32} : (tensor<2x4xi64>) -> tensor<2x1xi64>
  %m = nn.reduce_max %y {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x4xi64>) -> tensor<2xi64>
  func.return %s, %m : tensor<1x4xi32>, tensor<2xi64>
}

// -----

/// TOSA's product and a mean (a sum scaled by a float) are for floats only.
func.func @negative_integer_reduction(%x: tensor<4xi32>) -> tensor<1xi32> {
  %y = nn.reduce_prod %x : (tensor<4xi32>) -> tensor<1xi32>
  func.return %y : tensor<1xi32>
}
// CHECK: cannot lower nn.reduce_prod at {{.*}}: integer reductions lower to TOSA as sum, max or min of i32 or i64

// -----

func.func @negative_integer_softmax(%x: tensor<4xi32>) -> tensor<4xi32> {
  %y = nn.softmax %x : (tensor<4xi32>) -> tensor<4xi32>
  func.return %y : tensor<4xi32>
}
// CHECK: cannot lower nn.softmax at {{.*}}: integer softmax does not lower to TOSA

// -----

/// nn.slice with constant bounds (clamped as ONNX does) and nn.split become tosa.slice.
// CHECK-LABEL: func.func @slice_and_split
func.func @slice_and_split(%x: tensor<4x6xf32>) -> (tensor<2x4xf32>, tensor<4x2xf32>, tensor<4x4xf32>) {
  // CHECK: %[[S0:.*]] = "tosa.const_shape"() <{values = dense<[1, 2]> : tensor<2xindex>}>
  // CHECK: %[[S1:.*]] = "tosa.const_shape"() <{values = dense<[2, 4]> : tensor<2xindex>}>
  // CHECK: %[[S:.*]] = tosa.slice %x, %[[S0]], %[[S1]] : (tensor<4x6xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x4xf32>
  // CHECK: %[[A:.*]] = tosa.slice %x, {{.*}} -> tensor<4x2xf32>
  // CHECK: %[[B0:.*]] = "tosa.const_shape"() <{values = dense<[0, 2]> : tensor<2xindex>}>
  // CHECK: %[[B:.*]] = tosa.slice %x, %[[B0]], {{.*}} -> tensor<4x4xf32>
  // CHECK-NOT: nn.
  // CHECK: func.return %[[S]], %[[A]], %[[B]]
  %starts = nn.constant dense<[1, -4]> : tensor<2xi64>
  %ends = nn.constant dense<[3, 100]> : tensor<2xi64>
  %axes = nn.constant dense<[0, 1]> : tensor<2xi64>
  %steps = nn.constant dense<1> : tensor<2xi64>
  %s = nn.slice %x, %starts, %ends, %axes, %steps : (tensor<4x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x4xf32>
  %a, %b = nn.split %x {axis = 1 : i64, split = array<i64: 2, 4>} : (tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x4xf32>)
  func.return %s, %a, %b : tensor<2x4xf32>, tensor<4x2xf32>, tensor<4x4xf32>
}

// -----

/// ONNX casts float to int by truncation; tosa.cast rounds, so floor/ceil by sign first.
// CHECK-LABEL: func.func @cast_float_to_int
func.func @cast_float_to_int(%x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf16>) {
  // CHECK: %[[GE:.*]] = tosa.greater_equal %x
  // CHECK: %[[FL:.*]] = tosa.floor %x
  // CHECK: %[[CE:.*]] = tosa.ceil %x
  // CHECK: %[[T:.*]] = tosa.select %[[GE]], %[[FL]], %[[CE]]
  // CHECK: %[[I:.*]] = tosa.cast %[[T]] : (tensor<4xf32>) -> tensor<4xi32>
  // CHECK: %[[H:.*]] = tosa.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  // CHECK: func.return %[[I]], %[[H]]
  %i = nn.cast %x {to = i32} : (tensor<4xf32>) -> tensor<4xi32>
  %h = nn.cast %x {to = f16} : (tensor<4xf32>) -> tensor<4xf16>
  func.return %i, %h : tensor<4xi32>, tensor<4xf16>
}

// -----

func.func @negative_strided_slice(%x: tensor<6xf32>) -> tensor<3xf32> {
  %starts = nn.constant dense<0> : tensor<1xi64>
  %ends = nn.constant dense<6> : tensor<1xi64>
  %axes = nn.constant dense<0> : tensor<1xi64>
  %steps = nn.constant dense<2> : tensor<1xi64>
  %y = nn.slice %x, %starts, %ends, %axes, %steps : (tensor<6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
// CHECK: cannot lower nn.slice at {{.*}}: TOSA slices have no step (got 2)

// -----

func.func @negative_slice_dynamic_bounds(%x: tensor<6xf32>, %starts: tensor<1xi64>) -> tensor<3xf32> {
  %ends = nn.constant dense<6> : tensor<1xi64>
  %axes = nn.constant dense<0> : tensor<1xi64>
  %steps = nn.constant dense<1> : tensor<1xi64>
  %y = nn.slice %x, %starts, %ends, %axes, %steps : (tensor<6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
// CHECK: cannot lower nn.slice at {{.*}}: slice bounds must be constants

// -----

func.func @negative_cast_to_i64(%x: tensor<4xf32>) -> tensor<4xi64> {
  %y = nn.cast %x {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
  func.return %y : tensor<4xi64>
}
// CHECK: cannot lower nn.cast at {{.*}}: TOSA casts between i1, i8, i16, i32, f16, bf16 and f32 (i64 only with integers), not f32 to i64

// -----

func.func @negative_narrowing_int_cast(%x: tensor<4xi32>) -> tensor<4xi8> {
  %y = nn.cast %x {to = i8} : (tensor<4xi32>) -> tensor<4xi8>
  func.return %y : tensor<4xi8>
}
// CHECK: cannot lower nn.cast at {{.*}}: narrowing integer cast i32 to i8 (ONNX wraps)

// -----

func.func @negative_wrapping_float_cast(%x: tensor<4xf32>) -> tensor<4xi8> {
  %y = nn.cast %x {to = i8} : (tensor<4xf32>) -> tensor<4xi8>
  func.return %y : tensor<4xi8>
}
// CHECK: cannot lower nn.cast at {{.*}}: float cast to i8 wraps (ONNX; no clamp_narrow): tosa.cast saturates

// -----

/// clamp_narrow (TensorFlow): NaN, +inf and values from 2^31 up are the
/// minimum, then truncated and saturated by tosa.cast.
// CHECK-LABEL: func.func @clamped_float_cast
func.func @clamped_float_cast(%x: tensor<4xf32>) -> tensor<4xi16> {
  // CHECK: %[[BOUND:.*]] = "tosa.const"() <{values = dense<2.14748365e+09> : tensor<1xf32>}>
  // CHECK-NEXT: %[[BELOW:.*]] = tosa.greater %[[BOUND]], %x : (tensor<1xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK-NEXT: %[[LOW:.*]] = "tosa.const"() <{values = dense<-3.276800e+04> : tensor<1xf32>}>
  // CHECK-NEXT: %[[SAFE:.*]] = tosa.select %[[BELOW]], %x, %[[LOW]]
  // CHECK: tosa.floor %[[SAFE]]
  // CHECK: tosa.cast %{{.*}} : (tensor<4xf32>) -> tensor<4xi16>
  %y = nn.cast %x {to = i16, clamp_narrow} : (tensor<4xf32>) -> tensor<4xi16>
  func.return %y : tensor<4xi16>
}

// -----

/// i64 casts to and from other integers (TOSA's int64 extension); to i1 is x != 0.
// CHECK-LABEL: func.func @cast_i64
func.func @cast_i64(%x: tensor<4xi64>, %y: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi64>) {
  // CHECK: %[[B:.*]] = tosa.cast %x : (tensor<4xi64>) -> tensor<4xi1>
  // CHECK: %[[W:.*]] = tosa.cast %y : (tensor<4xi32>) -> tensor<4xi64>
  // CHECK: func.return %[[B]], %[[W]]
  %b = nn.cast %x {to = i1} : (tensor<4xi64>) -> tensor<4xi1>
  %w = nn.cast %y {to = i64} : (tensor<4xi32>) -> tensor<4xi64>
  func.return %b, %w : tensor<4xi1>, tensor<4xi64>
}
