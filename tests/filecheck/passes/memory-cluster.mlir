// RUN: graph-opt %s --split-input-file --cluster=%inputs/cluster/two_gpus.json -p swap | filecheck %s
// RUN: graph-opt %s --split-input-file --cluster=%inputs/cluster/two_gpus.json -p swap 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: graph-opt %s --split-input-file --cluster=%inputs/cluster/two_gpus.json -p memory-plan 2>&1 >/dev/null | filecheck %s --check-prefix=PLAN
// RUN: graph-opt %s --split-input-file --cluster=%inputs/cluster/two_gpus.json -p schedule-memory 2>&1 >/dev/null | filecheck %s --check-prefix=SCHED
// RUN: graph-opt %s --split-input-file -p 'recompute{cluster="%inputs/cluster/two_gpus.json"}' 2>&1 >/dev/null | filecheck %s --check-prefix=RECOMPUTE
// RUN: graph-opt %s --split-input-file --cluster=%inputs/cluster/two_gpus.json -p 'swap{budget=1024}' | filecheck %s --check-prefix=OVERRIDE
// RUN: not graph-opt %s --cluster=%inputs/cluster/bad_memory.json -p swap 2>&1 | filecheck %s --check-prefix=BAD

// BAD: graph-opt: error: argument --cluster: {{.*}}bad_memory.json: devices[0].memory: expected a positive number of bytes, or one such as '16GiB', got 'lots'

/// Unplaced ops run on the cluster's default device, /device:GPU:0, whose
/// 192 bytes are the budget: %a goes to the host over the peak (256 bytes),
/// and comes back on the GPU.
// CHECK-LABEL: func.func @unplaced_on_default_device
// CHECK: nn.swap_out %a {tf.device = "/device:CPU:0"}
// CHECK: nn.swap_in %swap_out_a after %e {tf.device = "/device:GPU:0"}
// PLAN-LABEL: memory-plan: @unplaced_on_default_device on /device:GPU:0: peak 256 bytes
// PLAN-SAME: ; memory 192 bytes
// PLAN-NEXT: warning: memory-plan: @unplaced_on_default_device on /device:GPU:0: peak 256 bytes and constants 0 bytes exceed the device's memory 192 bytes by 64 bytes
// SCHED-LABEL: warning: schedule-memory: @unplaced_on_default_device: the memory-aware order does not lower the peak
// SCHED-NEXT: warning: schedule-memory: @unplaced_on_default_device on /device:GPU:0: peak 256 bytes and constants 0 bytes exceed the device's memory 192 bytes
// RECOMPUTE-LABEL: warning: recompute: @unplaced_on_default_device on /device:GPU:0: peak 256 bytes at %e (nn.add, op 4 of 6) stays above the budget 192 bytes by 64 bytes
/// A budget given to the pass is every device's, whatever the cluster says.
// OVERRIDE-LABEL: func.func @unplaced_on_default_device
// OVERRIDE-NOT: nn.swap_out
func.func @unplaced_on_default_device(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.tanh %b : (tensor<16xf32>) -> tensor<16xf32>
  %e = nn.add %b, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %f = nn.add %e, %a : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %f : tensor<16xf32>
}

// -----

/// Unplaced ops and ops placed in the `/job:...` form count together on the
/// one listed device they name.
// CHECK-LABEL: func.func @placements_merge
// CHECK: nn.swap_out %a
// PLAN-LABEL: memory-plan: @placements_merge on /device:GPU:0: peak 256 bytes
// PLAN-NOT: memory-plan: @placements_merge on /job
func.func @placements_merge(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a {tf.device = "/job:localhost/replica:0/task:0/device:GPU:0"} : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.tanh %b : (tensor<16xf32>) -> tensor<16xf32>
  %e = nn.add %b, %c {tf.device = "/job:localhost/replica:0/task:0/device:GPU:0"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %f = nn.add %e, %a : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %f : tensor<16xf32>
}

// -----

/// Constants take their share of the device's memory: the budget is 192 - 64
/// bytes, and the peak left after one swap is reported against it.
// CHECK-LABEL: func.func @constants_count_against_memory
// CHECK: nn.swap_out %a
// WARN-LABEL: warning: swap: @constants_count_against_memory on /device:GPU:0: peak 192 bytes at %e (nn.add, op {{.*}}) stays above the budget 128 bytes by 64 bytes
func.func @constants_count_against_memory(%x: tensor<16xf32>) -> tensor<16xf32> {
  %k = nn.constant dense<1.0> : tensor<16xf32>
  %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.tanh %b : (tensor<16xf32>) -> tensor<16xf32>
  %e = nn.add %b, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %f = nn.add %e, %a : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %g = nn.add %f, %k : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %g : tensor<16xf32>
}

// -----

/// /device:GPU:1 has 1 KiB: the same graph fits there.
// CHECK-LABEL: func.func @negative_roomy_device
// CHECK-NOT: nn.swap_out
// WARN-LABEL: warning: swap: every device's peak (256 bytes at most) already fits the budget 1024 bytes (1.00 KiB); nothing swapped
func.func @negative_roomy_device(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x {tf.device = "/device:GPU:1"} : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a {tf.device = "/device:GPU:1"} : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.tanh %b {tf.device = "/device:GPU:1"} : (tensor<16xf32>) -> tensor<16xf32>
  %e = nn.add %b, %c {tf.device = "/device:GPU:1"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %f = nn.add %e, %a {tf.device = "/device:GPU:1"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %f : tensor<16xf32>
}

// -----

/// A device the cluster does not list has no budget: left as it is, said.
// CHECK-LABEL: func.func @negative_unlisted_device
// CHECK-NOT: nn.swap_out
// WARN-LABEL: warning: swap: @negative_unlisted_device on /device:GPU:7: no budget (swap{budget=BYTES}, or the device's memory in the cluster); nothing swapped
func.func @negative_unlisted_device(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x {tf.device = "/device:GPU:7"} : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a {tf.device = "/device:GPU:7"} : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.tanh %b {tf.device = "/device:GPU:7"} : (tensor<16xf32>) -> tensor<16xf32>
  %e = nn.add %b, %c {tf.device = "/device:GPU:7"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %f = nn.add %e, %a {tf.device = "/device:GPU:7"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %f : tensor<16xf32>
}
