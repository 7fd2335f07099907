// RUN: graph-opt %s --split-input-file -p 'quantize{training=true}' | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'quantize{training=true freeze-bn-delay=3}' | filecheck %s --check-prefix=FREEZE

/// A forward training graph: a conv on a variable, a training-mode batch norm
/// whose moving statistics are updated, a relu. The batch norm is folded as
/// TF's fold_batch_norms does in training: the conv is cloned on the weights
/// scaled by gamma * rsqrt(moving var + eps) (correction_mult, mul_fold), which
/// get the weight fake quantization; its output is scaled back to the batch
/// statistics (post_conv_mul), the folded bias added; the relu's output gets
/// the activation fake quantization; the original conv and its weight are not
/// quantized.
// CHECK-LABEL: func.func @conv_bn_relu
// FREEZE-LABEL: func.func @conv_bn_relu
func.func @conv_bn_relu(%x: tensor<2x4x4x3xf32>) -> tensor<2x4x4x2xf32> {
  // FREEZE: %[[COUNT:.*]] = tf_state.assign_add %fake_quantization_step
  // FREEZE-NEXT: %[[DELAY:.*]] = nn.constant dense<3> : tensor<i64>
  // FREEZE-NEXT: %[[FROZEN:.*]] = nn.greater_equal %[[COUNT]], %[[DELAY]]
  // CHECK: %conv1 = nn.conv %x, %w
  // CHECK-NOT: fake_quant
  // CHECK: %bn, %bn_1, %bn_2, %bn_3, %bn_4 = nn.batch_norm_training %conv1, %gamma, %beta, %zeros, %ones {tf.gradient_op_type = "FoldFusedBatchNormGrad"
  // FREEZE: %[[FMEAN:.*]] = nn.select %[[FROZEN]], %{{.*}}, %decay
  // FREEZE-NEXT: %{{.*}} = nn.mul %{{.*}}, %[[FMEAN]]
  // FREEZE: %[[FVAR:.*]] = nn.select %[[FROZEN]], %{{.*}}, %decay
  // FREEZE-NEXT: %{{.*}} = nn.mul %{{.*}}, %[[FVAR]]
  // CHECK: %[[BVAR:.*]] = nn.mul %bn_2, %{{.*}}
  // CHECK: %[[MULT:.*]] = nn.mul %gamma, %{{.*}}
  // CHECK: %[[SHIFT:.*]] = nn.mul %bn_1, %[[MULT]]
  // CHECK-NEXT: %[[BIAS:.*]] = nn.sub %beta, %[[SHIFT]]
  // CHECK: %[[SCALE:.*]] = nn.div %{{.*}}, %{{.*}}
  // CHECK-NEXT: %[[RECIP:.*]] = nn.reciprocal %[[SCALE]]
  // CHECK-NEXT: %[[ZEROS:.*]] = nn.constant dense<0.000000e+00> : tensor<2xf32>
  // FREEZE: %[[OFFSET:.*offset_compute]] = nn.mul %gamma, %{{.*}}
  // FREEZE: %[[FRECIP:.*]] = nn.select %[[FROZEN]], %{{.*}}, %{{.*}}reciprocal_compute
  // FREEZE-NEXT: %[[FOFFSET:.*]] = nn.select %[[FROZEN]], %[[OFFSET]], %{{.*}}zeros
  // CHECK-NEXT: %correction_mult = nn.mul %[[SCALE]], %w
  // CHECK-NEXT: %mul_fold = nn.mul %correction_mult, %[[MULT]]
  // CHECK: %conv1_Fold_weights_quant = nn.fake_quant_vars %mul_fold, %{{.*}}, %{{.*}} {num_bits = 8 : i64, narrow_range = 1 : i64}
  // CHECK-NEXT: %conv1_Fold = nn.conv %x, %conv1_Fold_weights_quant
  // CHECK-NEXT: %post_conv_mul = nn.mul %[[RECIP]], %conv1_Fold
  // FREEZE: %post_conv_mul = nn.mul %[[FRECIP]], %conv1_Fold
  // CHECK-NEXT: %correction_add = nn.add %post_conv_mul, %[[ZEROS]]
  // FREEZE-NEXT: %correction_add = nn.add %post_conv_mul, %[[FOFFSET]]
  // CHECK-NEXT: %add_fold = nn.add %correction_add, %[[BIAS]]
  // CHECK-NEXT: %r = nn.relu %add_fold
  // CHECK: %relu_act_quant = nn.fake_quant_vars %r
  // CHECK: func.return %relu_act_quant
  %v = tf_state.variable {var_name = "w", initial_value = dense<0.5> : tensor<3x3x3x2xf32>, resource} : !tf_state.variable<tensor<3x3x3x2xf32>>
  %w = tf_state.read %v : (!tf_state.variable<tensor<3x3x3x2xf32>>) -> tensor<3x3x3x2xf32>
  %conv1 = nn.conv %x, %w {data_layout = "NHWC", auto_pad = "SAME_UPPER"} : (tensor<2x4x4x3xf32>, tensor<3x3x3x2xf32>) -> tensor<2x4x4x2xf32> loc("conv1")
  %gamma = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = nn.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %zeros = nn.constant dense<0.0> : tensor<2xf32>
  %ones = nn.constant dense<1.0> : tensor<2xf32>
  %bn, %bn_1, %bn_2, %bn_3, %bn_4 = nn.batch_norm_training %conv1, %gamma, %beta, %zeros, %ones {epsilon = 1.000000e-03 : f32, data_layout = "NHWC"} : (tensor<2x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) loc("bn")
  %mm = tf_state.variable {var_name = "bn/moving_mean", initial_value = dense<0.0> : tensor<2xf32>, resource} : !tf_state.variable<tensor<2xf32>>
  %mv = tf_state.variable {var_name = "bn/moving_variance", initial_value = dense<1.0> : tensor<2xf32>, resource} : !tf_state.variable<tensor<2xf32>>
  %decay = nn.constant dense<0.1> : tensor<f32>
  %mm_read = tf_state.read %mm : (!tf_state.variable<tensor<2xf32>>) -> tensor<2xf32>
  %mm_sub = nn.sub %mm_read, %bn_1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %mm_mul = nn.mul %mm_sub, %decay : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %update_mean = tf_state.assign_sub %mm, %mm_mul : (!tf_state.variable<tensor<2xf32>>, tensor<2xf32>) -> tensor<2xf32>
  %mv_read = tf_state.read %mv : (!tf_state.variable<tensor<2xf32>>) -> tensor<2xf32>
  %mv_sub = nn.sub %mv_read, %bn_2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %mv_mul = nn.mul %mv_sub, %decay : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %update_var = tf_state.assign_sub %mv, %mv_mul : (!tf_state.variable<tensor<2xf32>>, tensor<2xf32>) -> tensor<2xf32>
  %r = nn.relu %bn : (tensor<2x4x4x2xf32>) -> tensor<2x4x4x2xf32> loc("relu")
  func.return %r : tensor<2x4x4x2xf32>
}

// -----

/// negative: the batch norm's gradient already reads its saved statistics
/// (TensorFlow derived the gradients): not folded; the conv's output is
/// quantized as on any unfolded graph.
// CHECK-LABEL: func.func @negative_gradients_derived
// CHECK-NOT: mul_fold
// CHECK: nn.batch_norm_training
// CHECK-NOT: tf.gradient_op_type
func.func @negative_gradients_derived(%x: tensor<2x4x4x3xf32>, %dy: tensor<2x4x4x2xf32>) -> (tensor<2x4x4x2xf32>, tensor<2x4x4x2xf32>) {
  %v = tf_state.variable {var_name = "w", initial_value = dense<0.5> : tensor<3x3x3x2xf32>, resource} : !tf_state.variable<tensor<3x3x3x2xf32>>
  %w = tf_state.read %v : (!tf_state.variable<tensor<3x3x3x2xf32>>) -> tensor<3x3x3x2xf32>
  %conv1 = nn.conv %x, %w {data_layout = "NHWC", auto_pad = "SAME_UPPER"} : (tensor<2x4x4x3xf32>, tensor<3x3x3x2xf32>) -> tensor<2x4x4x2xf32> loc("conv1")
  %gamma = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = nn.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %zeros = nn.constant dense<0.0> : tensor<2xf32>
  %ones = nn.constant dense<1.0> : tensor<2xf32>
  %bn, %bn_1, %bn_2, %bn_3, %bn_4 = nn.batch_norm_training %conv1, %gamma, %beta, %zeros, %ones {epsilon = 1.000000e-03 : f32, data_layout = "NHWC"} : (tensor<2x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) loc("bn")
  %mm = tf_state.variable {var_name = "bn/moving_mean", initial_value = dense<0.0> : tensor<2xf32>, resource} : !tf_state.variable<tensor<2xf32>>
  %decay = nn.constant dense<0.1> : tensor<f32>
  %mm_read = tf_state.read %mm : (!tf_state.variable<tensor<2xf32>>) -> tensor<2xf32>
  %mm_sub = nn.sub %mm_read, %bn_1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %mm_mul = nn.mul %mm_sub, %decay : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %update_mean = tf_state.assign_sub %mm, %mm_mul : (!tf_state.variable<tensor<2xf32>>, tensor<2xf32>) -> tensor<2xf32>
  %dx, %dgamma, %dbeta = nn.batch_norm_grad %dy, %conv1, %gamma, %bn_3, %bn_4 {epsilon = 1.000000e-03 : f32, data_layout = "NHWC"} : (tensor<2x4x4x2xf32>, tensor<2x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>) loc("gradients/bn_grad/FusedBatchNormGradV3")
  %r = nn.relu %bn : (tensor<2x4x4x2xf32>) -> tensor<2x4x4x2xf32> loc("relu")
  func.return %r, %dx : tensor<2x4x4x2xf32>, tensor<2x4x4x2xf32>
}

// -----

/// negative: no moving-average update reads the batch statistics, so there
/// are no moving statistics to correct with: not folded.
// CHECK-LABEL: func.func @negative_no_moving_average
// CHECK-NOT: mul_fold
// CHECK: func.return
func.func @negative_no_moving_average(%x: tensor<2x4x4x3xf32>) -> tensor<2x4x4x2xf32> {
  %v = tf_state.variable {var_name = "w", initial_value = dense<0.5> : tensor<3x3x3x2xf32>, resource} : !tf_state.variable<tensor<3x3x3x2xf32>>
  %w = tf_state.read %v : (!tf_state.variable<tensor<3x3x3x2xf32>>) -> tensor<3x3x3x2xf32>
  %conv1 = nn.conv %x, %w {data_layout = "NHWC", auto_pad = "SAME_UPPER"} : (tensor<2x4x4x3xf32>, tensor<3x3x3x2xf32>) -> tensor<2x4x4x2xf32> loc("conv1")
  %gamma = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = nn.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %zeros = nn.constant dense<0.0> : tensor<2xf32>
  %ones = nn.constant dense<1.0> : tensor<2xf32>
  %bn, %bn_1, %bn_2, %bn_3, %bn_4 = nn.batch_norm_training %conv1, %gamma, %beta, %zeros, %ones {epsilon = 1.000000e-03 : f32, data_layout = "NHWC"} : (tensor<2x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) loc("bn")
  %r = nn.relu %bn : (tensor<2x4x4x2xf32>) -> tensor<2x4x4x2xf32> loc("relu")
  func.return %r : tensor<2x4x4x2xf32>
}

// -----

/// A matmul in a name scope: its weight [K, N] scaled per output column, the
/// ops named in the layer's scope as TensorFlow names them.
// CHECK-LABEL: func.func @scoped_matmul_bn
// CHECK: %net_correction_mult = nn.mul %{{.*}}scale_compute, %w : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %net_mul_fold = nn.mul %net_correction_mult, %net_BatchNorm_Fold_mul
// CHECK: %net_dense_Fold = nn.matmul %x, %net_dense_Fold_weights_quant
// CHECK-NEXT: %net_post_conv_mul = nn.mul %{{.*}}, %net_dense_Fold
// CHECK: %net_add_fold = nn.add
// CHECK-NEXT: %r = nn.relu %net_add_fold
func.func @scoped_matmul_bn(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %v = tf_state.variable {var_name = "net/w", initial_value = dense<0.5> : tensor<4x3xf32>, resource} : !tf_state.variable<tensor<4x3xf32>>
  %w = tf_state.read %v : (!tf_state.variable<tensor<4x3xf32>>) -> tensor<4x3xf32>
  %mm1 = nn.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("net/dense")
  %gamma = nn.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %beta = nn.constant dense<[0.5, -0.5, 0.0]> : tensor<3xf32>
  %zeros = nn.constant dense<0.0> : tensor<3xf32>
  %ones = nn.constant dense<1.0> : tensor<3xf32>
  %bn, %bn_1, %bn_2, %bn_3, %bn_4 = nn.batch_norm_training %mm1, %gamma, %beta, %zeros, %ones {epsilon = 1.000000e-03 : f32, data_layout = "NHWC"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) loc("net/bn")
  %mm = tf_state.variable {var_name = "net/moving_mean", initial_value = dense<0.0> : tensor<3xf32>, resource} : !tf_state.variable<tensor<3xf32>>
  %mv = tf_state.variable {var_name = "net/moving_variance", initial_value = dense<1.0> : tensor<3xf32>, resource} : !tf_state.variable<tensor<3xf32>>
  %decay = nn.constant dense<0.1> : tensor<f32>
  %mm_read = tf_state.read %mm : (!tf_state.variable<tensor<3xf32>>) -> tensor<3xf32>
  %mm_sub = nn.sub %mm_read, %bn_1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %mm_mul = nn.mul %mm_sub, %decay : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %update_mean = tf_state.assign_sub %mm, %mm_mul : (!tf_state.variable<tensor<3xf32>>, tensor<3xf32>) -> tensor<3xf32>
  %mv_read = tf_state.read %mv : (!tf_state.variable<tensor<3xf32>>) -> tensor<3xf32>
  %mv_sub = nn.sub %mv_read, %bn_2 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %mv_mul = nn.mul %mv_sub, %decay : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %update_var = tf_state.assign_sub %mv, %mv_mul : (!tf_state.variable<tensor<3xf32>>, tensor<3xf32>) -> tensor<3xf32>
  %r = nn.relu %bn : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("relu")
  func.return %r : tensor<2x3xf32>
}

// -----

/// negative: a channels-first batch norm (its conv's filter OIHW) is not folded.
// CHECK-LABEL: func.func @negative_channels_first
// CHECK-NOT: mul_fold
// CHECK: func.return
func.func @negative_channels_first(%x: tensor<2x3x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %v = tf_state.variable {var_name = "w", initial_value = dense<0.5> : tensor<2x3x3x3xf32>, resource} : !tf_state.variable<tensor<2x3x3x3xf32>>
  %w = tf_state.read %v : (!tf_state.variable<tensor<2x3x3x3xf32>>) -> tensor<2x3x3x3xf32>
  %conv1 = nn.conv %x, %w {auto_pad = "SAME_UPPER"} : (tensor<2x3x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<2x2x4x4xf32> loc("conv1")
  %gamma = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = nn.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %zeros = nn.constant dense<0.0> : tensor<2xf32>
  %ones = nn.constant dense<1.0> : tensor<2xf32>
  %bn, %bn_1, %bn_2, %bn_3, %bn_4 = nn.batch_norm_training %conv1, %gamma, %beta, %zeros, %ones {epsilon = 1.000000e-03 : f32} : (tensor<2x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) loc("bn")
  %mm = tf_state.variable {var_name = "bn/moving_mean", initial_value = dense<0.0> : tensor<2xf32>, resource} : !tf_state.variable<tensor<2xf32>>
  %mv = tf_state.variable {var_name = "bn/moving_variance", initial_value = dense<1.0> : tensor<2xf32>, resource} : !tf_state.variable<tensor<2xf32>>
  %decay = nn.constant dense<0.1> : tensor<f32>
  %mm_read = tf_state.read %mm : (!tf_state.variable<tensor<2xf32>>) -> tensor<2xf32>
  %mm_sub = nn.sub %mm_read, %bn_1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %mm_mul = nn.mul %mm_sub, %decay : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %update_mean = tf_state.assign_sub %mm, %mm_mul : (!tf_state.variable<tensor<2xf32>>, tensor<2xf32>) -> tensor<2xf32>
  %mv_read = tf_state.read %mv : (!tf_state.variable<tensor<2xf32>>) -> tensor<2xf32>
  %mv_sub = nn.sub %mv_read, %bn_2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %mv_mul = nn.mul %mv_sub, %decay : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %update_var = tf_state.assign_sub %mv, %mv_mul : (!tf_state.variable<tensor<2xf32>>, tensor<2xf32>) -> tensor<2xf32>
  %r = nn.relu %bn : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> loc("relu")
  func.return %r : tensor<2x2x4x4xf32>
}

// -----

/// An eval graph's inference-mode batch norm (its moving statistics as
/// operands) is folded as create_eval_graph folds it: no corrections, the
/// weights scaled by gamma * rsqrt(var + eps), the bias added.
// CHECK-LABEL: func.func @eval_conv_bn_relu
// CHECK: %[[RSQRT:.*]] = nn.reciprocal %{{.*}}
// CHECK-NEXT: %[[MULT:.*]] = nn.mul %gamma, %[[RSQRT]]
// CHECK-NEXT: %[[SHIFT:.*]] = nn.mul %mean, %[[MULT]]
// CHECK-NEXT: %[[BIAS:.*]] = nn.sub %beta, %[[SHIFT]]
// CHECK-NEXT: %mul_fold = nn.mul %w, %[[MULT]]
// CHECK: %conv1_Fold = nn.conv %x, %conv1_Fold_weights_quant
// CHECK-NEXT: %add_fold = nn.add %conv1_Fold, %[[BIAS]]
// CHECK-NEXT: %r = nn.relu %add_fold
// CHECK-NOT: correction
func.func @eval_conv_bn_relu(%x: tensor<2x4x4x3xf32>) -> tensor<2x4x4x2xf32> {
  %v = tf_state.variable {var_name = "w", initial_value = dense<0.5> : tensor<3x3x3x2xf32>, resource} : !tf_state.variable<tensor<3x3x3x2xf32>>
  %w = tf_state.read %v : (!tf_state.variable<tensor<3x3x3x2xf32>>) -> tensor<3x3x3x2xf32>
  %conv1 = nn.conv %x, %w {data_layout = "NHWC", auto_pad = "SAME_UPPER"} : (tensor<2x4x4x3xf32>, tensor<3x3x3x2xf32>) -> tensor<2x4x4x2xf32> loc("conv1")
  %gamma = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = nn.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %mean = nn.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %var = nn.constant dense<[1.5, 0.5]> : tensor<2xf32>
  %bn = nn.batch_norm %conv1, %gamma, %beta, %mean, %var {epsilon = 1.000000e-03 : f32, data_layout = "NHWC"} : (tensor<2x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x4x4x2xf32> loc("bn")
  %r = nn.relu %bn : (tensor<2x4x4x2xf32>) -> tensor<2x4x4x2xf32> loc("relu")
  func.return %r : tensor<2x4x4x2xf32>
}
