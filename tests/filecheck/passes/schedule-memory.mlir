// RUN: graph-opt %s --split-input-file -p schedule-memory | filecheck %s
// RUN: graph-opt %s --split-input-file -p memory-plan,schedule-memory,memory-plan 2>&1 >/dev/null | filecheck %s --check-prefix=PLAN

/// Three branches each expand %x to 1 KiB and reduce it: run one branch to
/// its reduction before starting the next instead of holding all three
/// expansions. Constants move next to their first reader.
// CHECK-LABEL: func.func @expansions_first
// CHECK-NEXT: %c = nn.constant
// CHECK-NEXT: %p1 = nn.add %x, %c
// CHECK-NEXT: %q1 = nn.reduce_sum %p1
// CHECK-NEXT: %p2 = nn.mul %x, %c
// CHECK-NEXT: %q2 = nn.reduce_sum %p2
// CHECK-NEXT: %s = nn.add %q1, %q2
// CHECK-NEXT: %p3 = nn.sub %x, %c
// CHECK-NEXT: %q3 = nn.reduce_sum %p3
// CHECK-NEXT: %t = nn.add %s, %q3
// CHECK-NEXT: func.return %t
// PLAN-LABEL: memory-plan: @expansions_first:
// PLAN-SAME: peak 3136 bytes
// PLAN-LABEL: memory-plan: @expansions_first:
// PLAN-SAME: peak 1216 bytes
func.func @expansions_first(%x: tensor<16xf32>) -> tensor<1x16xf32> {
  %c = nn.constant dense<2.0> : tensor<16x16xf32>
  %p1 = nn.add %x, %c : (tensor<16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %p2 = nn.mul %x, %c : (tensor<16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %p3 = nn.sub %x, %c : (tensor<16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %q1 = nn.reduce_sum %p1 {axes = array<i64: 0>} : (tensor<16x16xf32>) -> tensor<1x16xf32>
  %q2 = nn.reduce_sum %p2 {axes = array<i64: 0>} : (tensor<16x16xf32>) -> tensor<1x16xf32>
  %q3 = nn.reduce_sum %p3 {axes = array<i64: 0>} : (tensor<16x16xf32>) -> tensor<1x16xf32>
  %s = nn.add %q1, %q2 : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
  %t = nn.add %s, %q3 : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
  func.return %t : tensor<1x16xf32>
}

// -----

/// Ops that may have side effects keep their order, even where running the
/// second first would free 1 KiB.
// CHECK-LABEL: func.func @negative_effects_in_order
// CHECK-NEXT: nn.opaque %x {op_type = "First"}
// CHECK-NEXT: nn.opaque %y {op_type = "Second"}
// PLAN: warning: schedule-memory: @negative_effects_in_order: the memory-aware order does not lower the peak 2112 bytes (2.06 KiB); order kept
func.func @negative_effects_in_order(%x: tensor<16xf32>, %y: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>) {
  %e1 = nn.opaque %x {op_type = "First"} : (tensor<16xf32>) -> tensor<16x16xf32>
  %e2 = nn.opaque %y {op_type = "Second"} : (tensor<16x16xf32>) -> tensor<16xf32>
  func.return %e1, %e2 : tensor<16x16xf32>, tensor<16xf32>
}

// -----

/// A chain has one order: kept, and the pass says so.
// CHECK-LABEL: func.func @negative_chain
// CHECK-NEXT: nn.relu
// CHECK-NEXT: nn.exp
// PLAN: warning: schedule-memory: @negative_chain: the memory-aware order does not lower the peak 128 bytes; order kept
func.func @negative_chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a : (tensor<16xf32>) -> tensor<16xf32>
  func.return %b : tensor<16xf32>
}
