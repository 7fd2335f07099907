// RUN: graph-opt %s --explain-pattern=conv-bias-relu 2>&1 >/dev/null | filecheck %s
// RUN: not graph-opt %s --explain-pattern=no-such-pattern 2>&1 | filecheck %s --check-prefix=UNKNOWN

/// One explanation per op that can root the pattern (nn.add, nn.relu): the
/// relu matches, the add after a tanh names the failing sub-pattern.
func.func @explain(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %w = nn.constant dense<1.0> : tensor<4x3x3x3xf32>
  %b = nn.constant dense<0.5> : tensor<4x1x1xf32>
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %bias = nn.add %conv, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %relu = nn.relu %bias : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %tanh = nn.tanh %relu : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %late = nn.add %tanh, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  func.return %late : tensor<1x4x6x6xf32>
}
// CHECK:      %bias (result #0 of nn.add) matches
// CHECK-NEXT: %relu (result #0 of nn.relu) matches
// CHECK-NEXT: %late (result #0 of nn.add) does not match:
// CHECK:      op is nn.tanh, expected nn.conv

// UNKNOWN: unknown pattern 'no-such-pattern'; known patterns: {{.*}}conv-bias-relu
