// RUN: graph-opt %s --split-input-file -p 'auto-parallel{replicas=2}' | filecheck %s

/// Grappler's example: the variable, the queue and the dequeue's count stay
/// single; each replica dequeues and adds, then each divides its gradient by 2
/// and updates the shared variable; a control fetch waits on both updates.
// CHECK-LABEL: func.func @seed_example()
func.func @seed_example() -> tensor<1xf32> {
  // CHECK-NEXT: %constant_b = nn.constant dense<1> : tensor<i32>
  // CHECK-NEXT: %[[V:.*]] = tf_state.variable {var_name = "var"
  // CHECK-NEXT: %[[Q:.*]] = tf_state.fifo_queue
  // CHECK-NEXT: %[[A0:.*]] = nn.constant dense<1.000000e+00>
  // CHECK-NEXT: %[[D0:AutoParallel-Replica-0_dequeue]] = tf_state.dequeue %[[Q]], %constant_b
  // CHECK-NEXT: %[[ADD0:.*]] = nn.add %[[A0]], %[[D0]]
  // CHECK-NEXT: %[[LR0:.*]] = nn.constant dense<1.000000e-02>
  // CHECK-NEXT: %AutoParallel-Replica-1_constant_a = nn.constant
  // CHECK-NEXT: %AutoParallel-Replica-1_dequeue = tf_state.dequeue %[[Q]], %constant_b
  // CHECK-NEXT: %AutoParallel-Replica-1_add = nn.add
  // CHECK-NEXT: %AutoParallel-Replica-1_learning_rate = nn.constant
  // CHECK-NEXT: %[[TWO0:AutoParallel-Replica-0_AutoParallel-Div-Const]] = nn.constant dense<2.000000e+00> : tensor<f32>
  // CHECK-NEXT: %[[DIV0:AutoParallel-Replica-0_AutoParallel-Div-apply_gradient]] = nn.div %[[ADD0]], %[[TWO0]]
  // CHECK-NEXT: %AutoParallel-Replica-0_apply_gradient = tf_state.apply_gradient_descent %[[V]], %[[LR0]], %[[DIV0]]
  // CHECK-NEXT: %AutoParallel-Replica-1_AutoParallel-Div-Const = nn.constant
  // CHECK-NEXT: %AutoParallel-Replica-1_AutoParallel-Div-apply_gradient = nn.div %AutoParallel-Replica-1_add, %AutoParallel-Replica-1_AutoParallel-Div-Const
  // CHECK-NEXT: %AutoParallel-Replica-1_apply_gradient = tf_state.apply_gradient_descent %[[V]], %AutoParallel-Replica-1_learning_rate
  // CHECK-NEXT: tf_state.group {tf.control_inputs = ["AutoParallel-Replica-0/apply_gradient", "AutoParallel-Replica-1/apply_gradient"]}
  // CHECK-NEXT: tf_state.group {tf.control_inputs = ["AutoParallel-Control-Fetch"]}
  // CHECK-NEXT: func.return{{$}}
  %constant_a = nn.constant dense<1.0> : tensor<1xf32>
  %constant_b = nn.constant dense<1> : tensor<i32>
  %var = tf_state.variable {var_name = "var", initial_value = dense<1.0> : tensor<1xf32>} : !tf_state.variable<tensor<1xf32>>
  %fifo_queue = tf_state.fifo_queue {queue_name = "fifo_queue"} : !tf_state.queue<[tensor<f32>]>
  %dequeue = tf_state.dequeue %fifo_queue, %constant_b : (!tf_state.queue<[tensor<f32>]>, tensor<i32>) -> tensor<1xf32>
  %add = nn.add %constant_a, %dequeue : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  %learning_rate = nn.constant dense<0.01> : tensor<f32>
  %apply_gradient = tf_state.apply_gradient_descent %var, %learning_rate, %add : (!tf_state.variable<tensor<1xf32>>, tensor<f32>, tensor<1xf32>) -> tensor<1xf32>
  func.return %apply_gradient : tensor<1xf32>
}

// -----

/// Without a queue, each replica reads its own copy of the placeholder (one
/// argument per replica); the momentum accumulator stays shared, and the
/// gradient (operand 3) is divided.
// CHECK-LABEL: func.func @placeholders_replicated
// CHECK-SAME: (%[[X0:.*]]: tensor<2xf32> {nn.name = "AutoParallel-Replica-0/x"}, %[[X1:.*]]: tensor<2xf32> {nn.name = "AutoParallel-Replica-1/x"})
func.func @placeholders_replicated(%x: tensor<2xf32> {nn.name = "x"}) -> tensor<2xf32> {
  // CHECK: %[[W:.*]] = tf_state.variable {var_name = "w"
  // CHECK: %[[M:.*]] = tf_state.variable {var_name = "w/Momentum"
  // CHECK: %[[G0:.*]] = nn.mul %[[X0]]
  // CHECK: %[[G1:.*]] = nn.mul %[[X1]]
  // CHECK: %[[DIV0:.*]] = nn.div %[[G0]]
  // CHECK-NEXT: tf_state.apply_momentum %[[W]], %[[M]], %{{.*}}, %[[DIV0]], %{{.*}}
  // CHECK: %[[DIV1:.*]] = nn.div %[[G1]]
  // CHECK-NEXT: tf_state.apply_momentum %[[W]], %[[M]], %{{.*}}, %[[DIV1]], %{{.*}}
  %w = tf_state.variable {var_name = "w", resource} : !tf_state.variable<tensor<2xf32>>
  %m = tf_state.variable {var_name = "w/Momentum", resource} : !tf_state.variable<tensor<2xf32>>
  %read = tf_state.read %w : (!tf_state.variable<tensor<2xf32>>) -> tensor<2xf32>
  %grad = nn.mul %x, %read : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %lr = nn.constant dense<0.1> : tensor<f32>
  %momentum = nn.constant dense<0.9> : tensor<f32>
  %update = tf_state.apply_momentum %w, %m, %lr, %grad, %momentum : (!tf_state.variable<tensor<2xf32>>, !tf_state.variable<tensor<2xf32>>, tensor<f32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  func.return %update : tensor<2xf32>
}

// -----

/// Variables without an optimizer update: nothing to parallelize (a warning).
// CHECK-LABEL: func.func @negative_no_update
// CHECK-SAME: (%x: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: tf_state.variable
// CHECK-NEXT: tf_state.assign_add
// CHECK-NEXT: func.return
// CHECK-NOT: AutoParallel
func.func @negative_no_update(%x: tensor<2xf32>) -> tensor<2xf32> {
  %v = tf_state.variable {var_name = "v"} : !tf_state.variable<tensor<2xf32>>
  %0 = tf_state.assign_add %v, %x : (!tf_state.variable<tensor<2xf32>>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
