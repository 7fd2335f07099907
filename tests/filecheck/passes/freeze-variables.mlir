// RUN: graph-opt %s --split-input-file -p 'freeze-variables{values="%inputs/freeze_variables/values.npz"}' | filecheck %s

/// A read, a range variable's update and a step counter become constants of
/// the stored values; the fake quantization with those bounds a fixed-range
/// nn.fake_quant, the select on the now constant condition its branch; the
/// variables and updates are gone (prune removes what is left unused).
// CHECK-LABEL: func.func @trained_layer
func.func @trained_layer(%x: tensor<2x1xf32>) -> tensor<2x2xf32> {
  // CHECK-NOT: tf_state
  // CHECK: %w = nn.constant dense<{{\[}}[1.500000e+00, -2.000000e+00]]> : tensor<1x2xf32>
  // CHECK: %mm = nn.matmul %x, %w
  // CHECK: %q = nn.fake_quant %mm {min = array<f32: -1.000000e+00>, max = array<f32: 3.000000e+00>, num_bits = 8 : i64}
  // CHECK-NOT: nn.select
  // CHECK: func.return %q
  %v = tf_state.variable {var_name = "v", initial_value = dense<0.0> : tensor<1x2xf32>, resource} : !tf_state.variable<tensor<1x2xf32>>
  %w = tf_state.read %v : (!tf_state.variable<tensor<1x2xf32>>) -> tensor<1x2xf32>
  %mm = nn.matmul %x, %w : (tensor<2x1xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %lo = tf_state.variable {var_name = "q/min", initial_value = dense<-6.0> : tensor<f32>, resource} : !tf_state.variable<tensor<f32>>
  %hi = tf_state.variable {var_name = "q/max", initial_value = dense<6.0> : tensor<f32>, resource} : !tf_state.variable<tensor<f32>>
  %zero = nn.constant dense<0.0> : tensor<f32>
  %alo = tf_state.assign %lo, %zero : (!tf_state.variable<tensor<f32>>, tensor<f32>) -> tensor<f32>
  %ahi = tf_state.assign %hi, %zero : (!tf_state.variable<tensor<f32>>, tensor<f32>) -> tensor<f32>
  %q = nn.fake_quant_vars %mm, %alo, %ahi {num_bits = 8 : i64} : (tensor<2x2xf32>, tensor<f32>, tensor<f32>) -> tensor<2x2xf32>
  %s = tf_state.variable {var_name = "step", initial_value = dense<0> : tensor<i64>, resource} : !tf_state.variable<tensor<i64>>
  %one = nn.constant dense<1> : tensor<i64>
  %count = tf_state.assign_add %s, %one : (!tf_state.variable<tensor<i64>>, tensor<i64>) -> tensor<i64>
  %delay = nn.constant dense<2> : tensor<i64>
  %on = nn.greater_equal %count, %delay : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %out = nn.select %on, %q, %mm : (tensor<i1>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %out : tensor<2x2xf32>
}

// -----

/// negative: a graph without variables is left as it is, with a warning.
// CHECK-LABEL: func.func @negative_no_variables
// CHECK-NEXT: nn.relu %x
func.func @negative_no_variables(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
