// RUN: graph-opt %s --split-input-file -p memory-plan 2>&1 >/dev/null | filecheck %s
// RUN: graph-opt %s --split-input-file -p 'memory-plan{dynamic-dim=8 alignment=16}' 2>&1 >/dev/null | filecheck %s --check-prefix=OPTIONS
// RUN: graph-opt %s --split-input-file -p memory-plan | filecheck %s --check-prefix=UNCHANGED

/// A chain: each tensor lives from its producer to its reader; the third
/// reuses the bytes of the argument, dead by then.
// CHECK-LABEL: memory-plan: @chain:
// CHECK-SAME: peak 128 bytes at %a (nn.relu, op 1 of 3); arena 128 bytes; constants 0 bytes; 3 tensor(s)
// UNCHANGED-LABEL: func.func @chain
// UNCHANGED-NEXT: nn.relu %x
// UNCHANGED-NEXT: nn.exp %a
// UNCHANGED-NEXT: func.return
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a : (tensor<16xf32>) -> tensor<16xf32>
  func.return %b : tensor<16xf32>
}

// -----

/// A long skip: %a stays live from the relu to the add, so the peak is where
/// %b and %c meet it (the first step at the peak is named).
// CHECK-LABEL: memory-plan: @long_skip:
// CHECK-SAME: peak 192 bytes at %c (nn.tanh, op 3 of 5); arena 192 bytes; constants 0 bytes; 5 tensor(s); one op's own tensors at most 192 bytes at %d (nn.add, op 4 of 5)
func.func @long_skip(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %a : (tensor<16xf32>) -> tensor<16xf32>
  %c = nn.tanh %b : (tensor<16xf32>) -> tensor<16xf32>
  %d = nn.add %c, %a : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %d : tensor<16xf32>
}

// -----

/// Constants are persistent memory: counted apart, not in the peak.
// CHECK-LABEL: memory-plan: @constants:
// CHECK-SAME: peak 128 bytes at %a (nn.add, op 2 of 3); arena 128 bytes; constants 64 bytes; 2 tensor(s)
func.func @constants(%x: tensor<16xf32>) -> tensor<16xf32> {
  %w = nn.constant dense<1.0> : tensor<16xf32>
  %a = nn.add %x, %w : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %a : tensor<16xf32>
}

// -----

/// An unknown dim counts as 1 (or dynamic-dim), with a warning.
// CHECK-LABEL: memory-plan: @dynamic:
// CHECK-SAME: peak 32 bytes
// CHECK-NEXT: warning: memory-plan: @dynamic: unknown dims in 2 tensor(s), each counted as 1 (memory-plan{dynamic-dim=N} assumes another size)
// OPTIONS-LABEL: memory-plan: @dynamic:
// OPTIONS-SAME: peak 256 bytes at %a (nn.relu, op 1 of 2); arena 256 bytes
// OPTIONS-NEXT: each counted as 8
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %a = nn.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %a : tensor<?x4xf32>
}

// -----

/// Each device (`tf.device`) has its own peak and arena; an argument is where
/// its readers are, unplaced ops on the default device.
// CHECK-LABEL: memory-plan: @devices:
// CHECK-SAME: peak 64 bytes at %n (nn.neg, op 4 of 5); arena 64 bytes; constants 0 bytes; 1 tensor(s)
// CHECK-NEXT: memory-plan: @devices on /device:CPU:0: peak 64 bytes at %h (nn.identity, op 2 of 5); arena 64 bytes; constants 0 bytes; 1 tensor(s)
// CHECK-NEXT: memory-plan: @devices on /device:GPU:0: peak 128 bytes at %a (nn.relu, op 1 of 5); arena 128 bytes; constants 0 bytes; 3 tensor(s)
func.func @devices(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x {tf.device = "/device:GPU:0"} : (tensor<16xf32>) -> tensor<16xf32>
  %h = nn.identity %a {tf.device = "/device:CPU:0"} : (tensor<16xf32>) -> tensor<16xf32>
  %b = nn.exp %h {tf.device = "/device:GPU:0"} : (tensor<16xf32>) -> tensor<16xf32>
  %n = nn.neg %b : (tensor<16xf32>) -> tensor<16xf32>
  func.return %n : tensor<16xf32>
}

// -----

/// A region's values all count at the op holding it (conservative); a value
/// it reads from outside lives until then. The i1 scalar takes 1 byte, its
/// slot 64 (alignment).
// CHECK-LABEL: memory-plan: @nested_region:
// CHECK-SAME: peak 193 bytes at %r (scf.if, op 2 of 3); arena 256 bytes
func.func @nested_region(%p: tensor<i1>, %x: tensor<16xf32>) -> tensor<16xf32> {
  %c = tensor.extract %p[] : tensor<i1>
  %r = scf.if %c -> (tensor<16xf32>) {
    %a = nn.relu %x : (tensor<16xf32>) -> tensor<16xf32>
    scf.yield %a : tensor<16xf32>
  } else {
    scf.yield %x : tensor<16xf32>
  }
  func.return %r : tensor<16xf32>
}

// -----

/// Nothing to hold: a function returning its argument peaks at the argument.
// CHECK-LABEL: memory-plan: @negative_no_ops:
// CHECK-SAME: peak 64 bytes at func.return (op 1 of 1); arena 64 bytes
// CHECK-NOT: warning
func.func @negative_no_ops(%x: tensor<16xf32>) -> tensor<16xf32> {
  func.return %x : tensor<16xf32>
}
