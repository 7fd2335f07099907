// RUN: graph-opt %s | filecheck %s
// RUN: graph-opt %s | %roundtrip | filecheck %s
// RUN: graph-opt %s --split-input-file --verify-diagnostics -p dce | filecheck %s --check-prefix=DCE

/// The swap pair: out to the host, in after a control operand (or none).
// CHECK-LABEL: func.func @swap_pair
// CHECK-NEXT: %h = nn.swap_out %x {tf.device = "/device:CPU:0"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %e = nn.exp %x
// CHECK-NEXT: %a = nn.swap_in %h after %e : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %b = nn.swap_in %h : (tensor<2x3xf32>) -> tensor<2x3xf32>
/// Not Pure: an unused copy stays (its place is the memory schedule).
// DCE-LABEL: func.func @swap_pair
// DCE: nn.swap_in %h :
func.func @swap_pair(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %h = nn.swap_out %x {tf.device = "/device:CPU:0"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = nn.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = nn.swap_in %h after %e : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = nn.swap_in %h : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %a : tensor<2x3xf32>
}
