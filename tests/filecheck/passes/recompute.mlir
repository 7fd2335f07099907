// RUN: graph-opt %s --split-input-file -p 'recompute{budget=256}' | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'recompute{budget=256},memory-plan' 2>&1 >/dev/null | filecheck %s --check-prefix=PLAN
// RUN: graph-opt %s --split-input-file -p 'recompute{budget=256}' 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

/// %a = relu(%h) is held from %b to %e while %h is held longer anyway: the
/// relu runs again right before %e, and %a is freed after %b.
// CHECK-LABEL: func.func @cheap_activation
// CHECK-NEXT: %h = nn.exp %x
// CHECK-NEXT: %a = nn.relu %h
// CHECK-NEXT: %b = nn.tanh %a
// CHECK-NEXT: %c = nn.neg %b
// CHECK-NEXT: %d = nn.add %b, %c
// CHECK-NEXT: %recomputed_a = nn.relu %h : (tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT: %e = nn.add %d, %recomputed_a
// CHECK-NEXT: %f = nn.add %e, %h
// PLAN-LABEL: memory-plan: @cheap_activation:
// PLAN-SAME: peak 256 bytes
func.func @cheap_activation(%x: tensor<16xf32>) -> tensor<16xf32> {
  %h = nn.exp %x : (tensor<16xf32>) -> tensor<16xf32>
  %a = nn.relu %h : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.tanh %a : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.neg %b : (tensor<16xf32>) -> tensor<16xf32>
  %d = nn.add %b, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %e = nn.add %d, %a : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %f = nn.add %e, %h : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %f : tensor<16xf32>
}

// -----

/// A softmax is not cheap to recompute: held as it is, and the pass says by
/// how much the peak misses the budget.
// CHECK-LABEL: func.func @negative_expensive_op
// CHECK-NOT: recomputed
// WARN-LABEL: warning: recompute: @negative_expensive_op: peak 320 bytes at %d (nn.add, op 5 of 8) stays above the budget 256 bytes by 64 bytes: no tensor live there is made by a cheap op from inputs still live at its next read
func.func @negative_expensive_op(%x: tensor<16xf32>) -> tensor<16xf32> {
  %h = nn.exp %x : (tensor<16xf32>) -> tensor<16xf32>
  %a = nn.softmax %h {axis = 0 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.tanh %a : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.neg %b : (tensor<16xf32>) -> tensor<16xf32>
  %d = nn.add %b, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %e = nn.add %d, %a : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %f = nn.add %e, %h : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %f : tensor<16xf32>
}

// -----

/// The relu's input dies early: recomputing would hold it instead.
// CHECK-LABEL: func.func @negative_input_dead
// CHECK-NOT: recomputed
// WARN-LABEL: warning: recompute: @negative_input_dead: peak 320 bytes at %d
func.func @negative_input_dead(%x: tensor<20xf32>) -> tensor<20xf32> {
  %h = nn.exp %x : (tensor<20xf32>) -> tensor<20xf32>
  %a = nn.relu %h : (tensor<20xf32>) -> tensor<20xf32>
  %b = nn.tanh %a : (tensor<20xf32>) -> tensor<20xf32>
  %c = nn.neg %b : (tensor<20xf32>) -> tensor<20xf32>
  %d = nn.add %b, %c : (tensor<20xf32>, tensor<20xf32>) -> tensor<20xf32>
  %e = nn.add %d, %a : (tensor<20xf32>, tensor<20xf32>) -> tensor<20xf32>
  func.return %e : tensor<20xf32>
}

// -----

/// Within the budget: nothing to do, said once.
// CHECK-LABEL: func.func @negative_fits
// CHECK-NOT: recomputed
// WARN-LABEL: warning: recompute: every device's peak (128 bytes at most) already fits the budget 256 bytes; nothing recomputed
func.func @negative_fits(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  func.return %a : tensor<16xf32>
}
