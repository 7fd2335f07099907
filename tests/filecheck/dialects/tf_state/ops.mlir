// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s
// RUN: graph-opt %s -p cse,dce | filecheck %s --check-prefix=DCE

// CHECK-LABEL: func.func @gradient_descent_step
// DCE-LABEL: func.func @gradient_descent_step
func.func @gradient_descent_step(%x: tensor<3xf32>) {
  // CHECK: %[[V:.*]] = tf_state.variable {var_name = "var", initial_value = dense<5.000000e-01> : tensor<1xf32>} : !tf_state.variable<tensor<1xf32>>
  %v = tf_state.variable {var_name = "var", initial_value = dense<0.5> : tensor<1xf32>} : !tf_state.variable<tensor<1xf32>>
  %lr = nn.constant dense<0.01> : tensor<f32>
  // CHECK: %[[Q:.*]] = tf_state.fifo_queue {queue_name = "q", capacity = 16 : i64} : !tf_state.queue<[tensor<f32>]>
  %q = tf_state.fifo_queue {queue_name = "q", capacity = 16 : i64} : !tf_state.queue<[tensor<f32>]>
  // CHECK: tf_state.enqueue %[[Q]], %{{.*}} {many} : !tf_state.queue<[tensor<f32>]>, tensor<3xf32>
  tf_state.enqueue %q, %x {many} : !tf_state.queue<[tensor<f32>]>, tensor<3xf32>
  %n = nn.constant dense<1> : tensor<i32>
  // CHECK: %[[D:.*]] = tf_state.dequeue %[[Q]], %{{.*}} : (!tf_state.queue<[tensor<f32>]>, tensor<i32>) -> tensor<1xf32>
  %d = tf_state.dequeue %q, %n : (!tf_state.queue<[tensor<f32>]>, tensor<i32>) -> tensor<1xf32>
  // CHECK: tf_state.apply_gradient_descent %[[V]], %{{.*}}, %[[D]]
  %u = tf_state.apply_gradient_descent %v, %lr, %d : (!tf_state.variable<tensor<1xf32>>, tensor<f32>, tensor<1xf32>) -> tensor<1xf32>
  // CHECK: tf_state.read %[[V]]
  %r = tf_state.read %v : (!tf_state.variable<tensor<1xf32>>) -> tensor<1xf32>
  // CHECK: tf_state.group {tf.control_inputs = ["apply"]}
  tf_state.group {tf.control_inputs = ["apply"]}
  func.return
}
/// dce keeps every write and allocation, and drops only the unused read
// DCE: tf_state.variable
// DCE: tf_state.fifo_queue
// DCE: tf_state.enqueue
// DCE: tf_state.dequeue
// DCE: tf_state.apply_gradient_descent
// DCE-NOT: tf_state.read
// DCE: tf_state.group

// CHECK-LABEL: func.func @optimizers
func.func @optimizers(%g: tensor<2xf32>, %s: tensor<f32>) {
  %v = tf_state.variable {var_name = "w", resource} : !tf_state.variable<tensor<2xf32>>
  %a = tf_state.variable {var_name = "w/Momentum", resource} : !tf_state.variable<tensor<2xf32>>
  %m = tf_state.variable {var_name = "w/Adam"} : !tf_state.variable<tensor<2xf32>>
  // CHECK: tf_state.apply_momentum %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {use_nesterov}
  %0 = tf_state.apply_momentum %v, %a, %s, %g, %s {use_nesterov} : (!tf_state.variable<tensor<2xf32>>, !tf_state.variable<tensor<2xf32>>, tensor<f32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  // CHECK: tf_state.apply_adam
  %1 = tf_state.apply_adam %v, %m, %a, %s, %s, %s, %s, %s, %s, %g : (!tf_state.variable<tensor<2xf32>>, !tf_state.variable<tensor<2xf32>>, !tf_state.variable<tensor<2xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  // CHECK: tf_state.assign_sub
  %2 = tf_state.assign_sub %v, %g : (!tf_state.variable<tensor<2xf32>>, tensor<2xf32>) -> tensor<2xf32>
  // CHECK: tf_state.assign_add
  %3 = tf_state.assign_add %v, %g : (!tf_state.variable<tensor<2xf32>>, tensor<2xf32>) -> tensor<2xf32>
  // CHECK: tf_state.assign
  %4 = tf_state.assign %v, %g : (!tf_state.variable<tensor<2xf32>>, tensor<2xf32>) -> tensor<2xf32>
  func.return
}
