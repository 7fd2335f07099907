// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s

/// graph-opt's `tosa` dialect (graph_opt/dialects/tosa_ext.py) parses upstream MLIR's
/// generic form of the TOSA 1.0 ops xDSL lacks, and prints it back.
// CHECK-LABEL: func.func @tosa_ext_ops
func.func @tosa_ext_ops(%x: tensor<1x4x4x2xf32>, %w: tensor<3x1x1x2xf32>, %dw: tensor<1x1x2x1xf32>, %b: tensor<3xf32>, %b2: tensor<2xf32>, %a: tensor<2x3x4xf32>, %m: tensor<2x4x5xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // CHECK: tosa.conv2d %x, %w, %b, %{{.*}}, %{{.*}} {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}
  %c = "tosa.conv2d"(%x, %w, %b, %zp, %zp) <{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  // CHECK: tosa.depthwise_conv2d %x, %dw, %b2
  %d = "tosa.depthwise_conv2d"(%x, %dw, %b2, %zp, %zp) <{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<1x4x4x2xf32>, tensor<1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  // CHECK: tosa.matmul %a, %m, %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3x5xf32>
  %mm = "tosa.matmul"(%a, %m, %zp, %zp) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3x5xf32>
  // CHECK: %[[S:.*]] = "tosa.const_shape"() <{values = dense<32> : tensor<1xindex>}> : () -> !tosa.shape<1>
  %s = "tosa.const_shape"() <{values = dense<32> : tensor<1xindex>}> : () -> !tosa.shape<1>
  // CHECK: tosa.reshape %x, %[[S]] : (tensor<1x4x4x2xf32>, !tosa.shape<1>) -> tensor<32xf32>
  %r = "tosa.reshape"(%x, %s) : (tensor<1x4x4x2xf32>, !tosa.shape<1>) -> tensor<32xf32>
  // CHECK: tosa.transpose %a {perms = array<i32: 2, 1, 0>}
  %t = "tosa.transpose"(%a) <{perms = array<i32: 2, 1, 0>}> : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  // CHECK: tosa.maximum %a, %a {nan_mode = #tosa.nan_mode<PROPAGATE>}
  %mx = "tosa.maximum"(%a, %a) <{nan_mode = #tosa.nan_mode<PROPAGATE>}> : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: tosa.negate %a, %{{.*}}, %{{.*}}
  %n = "tosa.negate"(%a, %zp, %zp) : (tensor<2x3x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3x4xf32>
  func.return
}


/// Control flow in upstream's generic form (mlir/test/Dialect/Tosa's
/// isolated-from-above cases): the regions take the input list as arguments.
// CHECK-LABEL: func.func @tosa_ext_control_flow
func.func @tosa_ext_control_flow(%x: tensor<f32>, %y: tensor<f32>, %p: tensor<i1>, %n: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  // CHECK: "tosa.cond_if"(%p, %x, %y) ({
  // CHECK-NEXT: ^{{.*}}(%[[A:.*]]: tensor<f32>, %{{.*}}: tensor<f32>):
  // CHECK-NEXT: tosa.yield %[[A]] : tensor<f32>
  // CHECK: }) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
  %r = "tosa.cond_if"(%p, %x, %y) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    "tosa.yield"(%a) : (tensor<f32>) -> ()
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    "tosa.yield"(%b) : (tensor<f32>) -> ()
  }) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
  %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  // CHECK: "tosa.while_loop"(%{{.*}}, %n) ({
  // CHECK: tosa.yield %{{.*}} : tensor<i1>
  // CHECK: tosa.yield %{{.*}}, %{{.*}} : tensor<i32>, tensor<i32>
  // CHECK: }) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  %w:2 = "tosa.while_loop"(%zero, %n) ({
  ^bb0(%i: tensor<i32>, %m: tensor<i32>):
    %c = "tosa.greater"(%m, %i) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tosa.yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %m: tensor<i32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %next = "tosa.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "tosa.yield"(%next, %m) : (tensor<i32>, tensor<i32>) -> ()
  }) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  func.return %r, %w#0 : tensor<f32>, tensor<i32>
}
