// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s
func.func @assign_of_another_shape(%x: tensor<3xf32>) {
  %v = tf_state.variable {var_name = "v"} : !tf_state.variable<tensor<2xf32>>
  %0 = tf_state.assign %v, %x : (!tf_state.variable<tensor<2xf32>>, tensor<3xf32>) -> tensor<2xf32>
  func.return
}
// CHECK: operand 1 has type tensor<3xf32>, expected tensor<2xf32>

// -----

func.func @learning_rate_not_scalar(%x: tensor<2xf32>) {
  %v = tf_state.variable {var_name = "v"} : !tf_state.variable<tensor<2xf32>>
  %0 = tf_state.apply_gradient_descent %v, %x, %x : (!tf_state.variable<tensor<2xf32>>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return
}
// CHECK: operand 1 must be a scalar, got [2]

// -----

func.func @initial_value_of_another_type() {
  %v = tf_state.variable {var_name = "v", initial_value = dense<1.0> : tensor<3xf32>} : !tf_state.variable<tensor<2xf32>>
  func.return
}
// CHECK: initial value of type tensor<3xf32> does not fit !tf_state.variable<tensor<2xf32>>

// -----

func.func @read_of_a_tensor(%x: tensor<2xf32>) {
  %0 = tf_state.read %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}
// CHECK: tensor<2xf32> should be of base attribute tf_state.variable

// -----

func.func @enqueue_of_wrong_arity(%x: tensor<f32>) {
  %q = tf_state.fifo_queue {queue_name = "q"} : !tf_state.queue<[tensor<f32>, tensor<2xi32>]>
  tf_state.enqueue %q, %x : !tf_state.queue<[tensor<f32>, tensor<2xi32>]>, tensor<f32>
  func.return
}
// CHECK: the queue has 2 components, given 1

// -----

func.func @dequeue_many_types() {
  %q = tf_state.fifo_queue {queue_name = "q"} : !tf_state.queue<[tensor<f32>]>
  %n = nn.constant dense<2> : tensor<i32>
  %0 = tf_state.dequeue %q, %n : (!tf_state.queue<[tensor<f32>]>, tensor<i32>) -> tensor<3xf32>
  func.return
}
// CHECK: result #0 has type tensor<3xf32>, but the operands imply tensor<2xf32>
