// RUN: graph-opt %s --split-input-file -p 'quantize{training=true}' | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'quantize{training=true quant-delay=5 ema-decay=0.5}' | filecheck %s --check-prefix=DELAY

/// A matmul on a variable's value, its relu, the relu's gradient (TensorFlow's
/// `gradients/relu_grad/`) and the weight's update: the weight gets
/// last-value range variables and a narrow-range fake quantization, its
/// update the masked gradient; the relu's output gets moving-average ranges,
/// its readers the fake-quantized value except its own gradient op, whose
/// incoming gradient is masked.
// CHECK-LABEL: func.func @matmul_relu_step
// DELAY-LABEL: func.func @matmul_relu_step
func.func @matmul_relu_step(%x: tensor<2x3xf32>, %dy: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // DELAY: %fake_quantization_step = tf_state.variable {var_name = "fake_quantization_step", initial_value = dense<0> : tensor<i64>, resource}
  // DELAY-NEXT: %[[ONE:.*]] = nn.constant dense<1> : tensor<i64>
  // DELAY-NEXT: %[[COUNT:.*]] = tf_state.assign_add %fake_quantization_step, %[[ONE]]
  // DELAY-NEXT: %quant_delay = nn.constant dense<5> : tensor<i64>
  // DELAY-NEXT: %activate_quant = nn.greater_equal %[[COUNT]], %quant_delay
  // CHECK: %w = tf_state.read %v
  // CHECK: %[[WMIN:.*]] = nn.reduce_min %w {keepdims = 0 : i64}
  // CHECK: %[[WMAX:.*]] = nn.reduce_max %w {keepdims = 0 : i64}
  // CHECK: %[[LOW:.*]] = nn.min %[[WMIN]], %{{.*}}
  // CHECK: %[[HIGH:.*]] = nn.max %[[WMAX]], %{{.*}}
  // CHECK: %mm_weights_quant_min = tf_state.variable {var_name = "mm/weights_quant/min", initial_value = dense<-6.000000e+00> : tensor<f32>, resource}
  // CHECK-NEXT: %[[AMIN:.*]] = tf_state.assign %mm_weights_quant_min, %[[LOW]]
  // CHECK: %[[AMAX:.*]] = tf_state.assign %mm_weights_quant_max, %[[HIGH]]
  // CHECK-NEXT: %mm_weights_quant = nn.fake_quant_vars %w, %[[AMIN]], %[[AMAX]] {num_bits = 8 : i64, narrow_range = 1 : i64}
  // CHECK-NEXT: %mm = nn.matmul %x, %mm_weights_quant
  // DELAY: %mm_weights_quant_delayed_quant = nn.select %activate_quant, %mm_weights_quant, %w
  // DELAY-NEXT: %mm = nn.matmul %x, %mm_weights_quant_delayed_quant
  // CHECK: %r = nn.relu %mm
  // CHECK: %relu_act_quant_decay = nn.constant dense<1.000000e-03> : tensor<f32>
  // DELAY: %relu_act_quant_decay = nn.constant dense<5.000000e-01> : tensor<f32>
  // CHECK: %[[READ:.*]] = tf_state.read %relu_act_quant_min
  // CHECK-NEXT: %[[DIFF:.*]] = nn.sub %[[READ]], %{{.*}}
  // CHECK-NEXT: %[[STEP:.*]] = nn.mul %[[DIFF]], %relu_act_quant_decay
  // CHECK-NEXT: %[[RMIN:.*]] = tf_state.assign_sub %relu_act_quant_min, %[[STEP]]
  // CHECK: %relu_act_quant = nn.fake_quant_vars %r, %[[RMIN]], %{{.*}} {num_bits = 8 : i64}
  // CHECK: %[[DYQ:.*]] = nn.fake_quant_vars_grad %dy_in, %r, %[[RMIN]], %{{.*}} {num_bits = 8 : i64}
  // CHECK-NEXT: %grad = nn.relu_grad %[[DYQ]], %r
  // CHECK: %[[WGRAD:.*]] = nn.fake_quant_vars_grad %wgrad, %w, %[[AMIN]], %[[AMAX]] {num_bits = 8 : i64, narrow_range = 1 : i64}
  // DELAY: %[[MASKED:.*]] = nn.fake_quant_vars_grad %wgrad, %w
  // DELAY-NEXT: %[[CHOSEN:.*]] = nn.select %activate_quant, %[[MASKED]], %wgrad
  // DELAY-NEXT: tf_state.apply_gradient_descent %v, %lr, %[[CHOSEN]]
  // CHECK-NEXT: tf_state.apply_gradient_descent %v, %lr, %[[WGRAD]]
  // CHECK: func.return %relu_act_quant
  %v = tf_state.variable {var_name = "v", initial_value = dense<0.5> : tensor<3x4xf32>, resource} : !tf_state.variable<tensor<3x4xf32>>
  %w = tf_state.read %v : (!tf_state.variable<tensor<3x4xf32>>) -> tensor<3x4xf32>
  %mm = nn.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("mm")
  %r = nn.relu %mm : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("relu")
  %dy_in = nn.identity %dy : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("gradients/out_grad/dy")
  %grad = nn.relu_grad %dy_in, %r : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("gradients/relu_grad/ReluGrad")
  %xt = nn.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %wgrad = nn.matmul %xt, %grad : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32> loc("gradients/mm_grad/MatMul_1")
  %lr = nn.constant dense<0.1> : tensor<f32>
  %upd = tf_state.apply_gradient_descent %v, %lr, %wgrad : (!tf_state.variable<tensor<3x4xf32>>, tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %r : tensor<2x4xf32>
}

// -----

/// negative: a graph without layers is left alone, with a warning.
// CHECK-LABEL: func.func @negative_no_layer
// CHECK-NOT: fake_quant
func.func @negative_no_layer(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

/// negative: a layer on a computed weight (not a variable or constant) is not a layer.
// CHECK-LABEL: func.func @negative_computed_weight
// CHECK-NOT: fake_quant
func.func @negative_computed_weight(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %mm = nn.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return %mm : tensor<2x4xf32>
}
