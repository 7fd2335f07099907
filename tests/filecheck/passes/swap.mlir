// RUN: graph-opt %s --split-input-file -p 'swap{budget=192}' | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'swap{budget=192},memory-plan' 2>&1 >/dev/null | filecheck %s --check-prefix=PLAN
// RUN: graph-opt %s --split-input-file -p 'swap{budget=192}' 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

/// %a is live from the relu to the last add but read by neither op at the
/// peak (%e, 256 bytes): it goes to the host after its last read before the
/// peak and comes back before the add, after %e (control dependency).
// CHECK-LABEL: func.func @long_skip
// CHECK-NEXT: %a = nn.relu %x
// CHECK-NEXT: %b = nn.exp %a
// CHECK-NEXT: %swap_out_a = nn.swap_out %a {tf.device = "/device:CPU:0"} : (tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT: %c = nn.tanh %b
// CHECK-NEXT: %e = nn.add %b, %c
// CHECK-NEXT: %swap_in_a = nn.swap_in %swap_out_a after %e : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT: %f = nn.add %e, %swap_in_a
// CHECK-NEXT: func.return %f
// PLAN-LABEL: memory-plan: @long_skip:
// PLAN-SAME: peak 192 bytes at %e (nn.add, op 5 of 8)
// PLAN-NEXT: memory-plan: @long_skip on /device:CPU:0: peak 64 bytes
func.func @long_skip(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.tanh %b : (tensor<16xf32>) -> tensor<16xf32>
  %e = nn.add %b, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %f = nn.add %e, %a : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %f : tensor<16xf32>
}

// -----

/// On a named device, the copy back is placed there.
// CHECK-LABEL: func.func @placed
// CHECK: nn.swap_out %a {tf.device = "/device:CPU:0"}
// CHECK: nn.swap_in %swap_out_a after %e {tf.device = "/device:GPU:0"}
// PLAN-LABEL: memory-plan: @placed on /device:GPU:0:
// PLAN-SAME: peak 192 bytes
func.func @placed(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x {tf.device = "/device:GPU:0"} : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a {tf.device = "/device:GPU:0"} : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.tanh %b {tf.device = "/device:GPU:0"} : (tensor<16xf32>) -> tensor<16xf32>
  %e = nn.add %b, %c {tf.device = "/device:GPU:0"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %f = nn.add %e, %a {tf.device = "/device:GPU:0"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %f : tensor<16xf32>
}

// -----

/// An argument read only at the end leaves the device before the first op.
// CHECK-LABEL: func.func @late_argument
// CHECK-NEXT: %swap_out_y = nn.swap_out %y
// CHECK-NEXT: %a = nn.relu %x
// CHECK: %swap_in_y = nn.swap_in %swap_out_y after %c
// CHECK-NEXT: nn.add %c, %swap_in_y
func.func @late_argument(%x: tensor<16xf32>, %y: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.add %a, %b : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %d = nn.add %c, %y : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %d : tensor<16xf32>
}

// -----

/// The peak fits already: nothing moves, and the pass says so.
// CHECK-LABEL: func.func @negative_fits
// CHECK-NOT: nn.swap
// WARN-LABEL: warning: swap: every device's peak (128 bytes at most) already fits the budget 192 bytes; nothing swapped
func.func @negative_fits(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a : (tensor<16xf32>) -> tensor<16xf32>
  func.return %b : tensor<16xf32>
}

// -----

/// Every tensor live at the peak is read or made there: no swap helps, and
/// the pass says by how much the budget is missed.
// CHECK-LABEL: func.func @negative_op_too_large
// CHECK-NOT: nn.swap
// WARN-LABEL: warning: swap: @negative_op_too_large: peak 256 bytes at %a (nn.relu, op 1 of 3) stays above the budget 192 bytes by 64 bytes: every tensor live there is made or read by that op
func.func @negative_op_too_large(%x: tensor<32xf32>) -> tensor<32xf32> {
  %a = nn.relu %x : (tensor<32xf32>) -> tensor<32xf32>
  %b = nn.exp %a : (tensor<32xf32>) -> tensor<32xf32>
  func.return %b : tensor<32xf32>
}

// -----

/// A graph placed on the host (TensorFlow's long device name) has no device
/// memory to relieve.
// CHECK-LABEL: func.func @negative_on_host
// CHECK-NOT: nn.swap
// WARN-LABEL: warning: swap: @negative_on_host: every tensor is on the host device (/job:localhost/replica:0/task:0/device:CPU:0); nothing swapped
func.func @negative_on_host(%x: tensor<32xf32>) -> tensor<32xf32> {
  %a = nn.relu %x {tf.device = "/job:localhost/replica:0/task:0/device:CPU:0"} : (tensor<32xf32>) -> tensor<32xf32>
  %b = nn.exp %a {tf.device = "/job:localhost/replica:0/task:0/device:CPU:0"} : (tensor<32xf32>) -> tensor<32xf32>
  func.return %b : tensor<32xf32>
}

// -----

/// A read inside a region counts at the op holding it: the copy comes back
/// before the scf.if, whose region reads it. The region's values all count
/// at the scf.if, which then holds more than the budget by itself.
// CHECK-LABEL: func.func @read_in_region
// WARN-LABEL: warning: swap: @read_in_region: peak 257 bytes at %r (scf.if, op 7 of 8) stays above the budget 192 bytes by 65 bytes
// CHECK: %swap_out_a = nn.swap_out %a
// CHECK: %swap_in_a = nn.swap_in %swap_out_a after %e
// CHECK-NEXT: scf.if
// CHECK-NEXT: nn.add %e, %swap_in_a
func.func @read_in_region(%p: i1, %x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.tanh %b : (tensor<16xf32>) -> tensor<16xf32>
  %e = nn.add %b, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %r = scf.if %p -> (tensor<16xf32>) {
    %f = nn.add %e, %a : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    scf.yield %f : tensor<16xf32>
  } else {
    scf.yield %e : tensor<16xf32>
  }
  func.return %r : tensor<16xf32>
}
