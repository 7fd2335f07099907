// RUN: graph-opt %s --split-input-file --cluster=%inputs/cluster/two_gpus.json -p convert-layout | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'convert-layout{cluster="%inputs/cluster/cpu_default.toml"}' | filecheck %s --check-prefix=ONCPU
// RUN: graph-opt %s --split-input-file --cluster=%inputs/cluster/two_gpus.json -p convert-layout 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

/// As Grappler, only the ops on a device preferring NCHW are converted: the
/// GPU conv becomes NCHW between transposes, the CPU conv stays NHWC.
// CHECK-LABEL: func.func @gpu_converted_cpu_kept
// CHECK:      %[[X:.*]] = nn.transpose %x {tf.device = "/device:GPU:0", perm = array<i64: 0, 3, 1, 2>}
// CHECK:      %[[G:.*]] = nn.conv %[[X]], %{{.*}} {tf.device = "/device:GPU:0", data_layout = "NCHW"}
// CHECK-NEXT: %[[Y:.*]] = nn.transpose %[[G]] {tf.device = "/device:GPU:0", perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT: nn.conv %[[Y]], %w {tf.device = "/device:CPU:0", data_layout = "NHWC"}
// ONCPU-LABEL: func.func @gpu_converted_cpu_kept
// ONCPU: nn.conv %{{.*}} {tf.device = "/device:GPU:0", data_layout = "NCHW"}
// ONCPU: nn.conv %{{.*}}, %w {tf.device = "/device:CPU:0", data_layout = "NHWC"}
// WARN: warning: convert-layout: 1 op(s) kept in their layout: their device prefers it (first: nn.conv on /device:CPU:0)
func.func @gpu_converted_cpu_kept(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = nn.constant dense<0.5> : tensor<1x1x2x2xf32>
  %g = nn.conv %x, %w {data_layout = "NHWC", tf.device = "/device:GPU:0"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %c = nn.conv %g, %w {data_layout = "NHWC", tf.device = "/device:CPU:0"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %c : tensor<1x4x4x2xf32>
}

// -----

/// An unplaced op runs on the default device: the GPU in two_gpus.json
/// (converted), the CPU in cpu_default.toml (kept).
// CHECK-LABEL: func.func @unplaced_on_default_device
// CHECK:      nn.conv %{{.*}} {data_layout = "NCHW"}
// ONCPU-LABEL: func.func @unplaced_on_default_device
// ONCPU-NOT: nn.transpose
// ONCPU: nn.conv %x, %w {data_layout = "NHWC"}
// ONCPU-NOT: nn.transpose
// WARN: warning: convert-layout: 1 op(s) kept in their layout: their device prefers it (first: nn.max_pool on /device:CPU:0)
func.func @unplaced_on_default_device(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = nn.constant dense<0.5> : tensor<1x1x2x2xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %c : tensor<1x4x4x2xf32>
}

// -----

/// A device the cluster does not list states no preference: converted, as
/// without a cluster.
// CHECK-LABEL: func.func @unlisted_device_converted
// CHECK:      nn.conv %{{.*}} {tf.device = "/device:GPU:7", data_layout = "NCHW"}
// ONCPU-LABEL: func.func @unlisted_device_converted
func.func @unlisted_device_converted(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = nn.constant dense<0.5> : tensor<1x1x2x2xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC", tf.device = "/device:GPU:7"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %c : tensor<1x4x4x2xf32>
}

// -----

/// A CPU max pool between two GPU convs: the transposes stay around it.
// CHECK-LABEL: func.func @negative_cpu_pool_between_gpu_convs
// CHECK:      nn.conv {{.*}}data_layout = "NCHW"
// CHECK:      nn.transpose {{.*}}perm = array<i64: 0, 2, 3, 1>
// CHECK-NEXT: nn.max_pool {{.*}}data_layout = "NHWC"
// CHECK-NEXT: nn.transpose {{.*}}perm = array<i64: 0, 3, 1, 2>
// CHECK-NEXT: nn.conv {{.*}}data_layout = "NCHW"
func.func @negative_cpu_pool_between_gpu_convs(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = nn.constant dense<0.5> : tensor<1x1x2x2xf32>
  %a = nn.conv %x, %w {data_layout = "NHWC", tf.device = "/device:GPU:0"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %p = nn.max_pool %a {data_layout = "NHWC", kernel_shape = array<i64: 1, 1>, tf.device = "/device:CPU:0"} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %b = nn.conv %p, %w {data_layout = "NHWC", tf.device = "/device:GPU:0"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %b : tensor<1x4x4x2xf32>
}
