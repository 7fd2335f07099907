// RUN: graph-opt %s -p 'calibrate{inputs="%inputs/calibrate/samples.npz"}' | filecheck %s
// RUN: graph-opt %s -p 'calibrate{inputs="%inputs/calibrate/samples.npz" method=moving_average decay=0.5}' | filecheck %s --check-prefix=EMA
// RUN: graph-opt %s -p 'calibrate{inputs="%inputs/calibrate/samples.npz" method=percentile percentile=75.0}' | filecheck %s --check-prefix=PCT
// RUN: graph-opt %s -p 'calibrate{inputs="%inputs/calibrate/samples.npz"},quantize' | filecheck %s --check-prefix=QUANT
// RUN: not graph-opt %s -p 'calibrate{inputs="%inputs/calibrate/wrong_name.npz"}' 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not graph-opt %s -p 'calibrate{inputs="%inputs/calibrate/samples.npz" method=histogram}' 2>&1 | filecheck %s --check-prefix=METHOD

/// samples.npz holds two samples of %x (stacked on a leading dim): [1, -2] and
/// [3, 0.5]. relu: [1, 0], [3, 0.5]; neg: [-1, 2], [-3, -0.5]; matmul:
/// [-1, 4], [3.5, 5.5].
/// minmax: the union of the ranges.
// CHECK-LABEL: func.func @main
/// Constants get no range.
// CHECK: %w = nn.constant dense<{{[^{}]*}} : tensor<2x2xf32>{{$}}
// CHECK: nn.relu %x {nn.range = array<f32: 0.000000e+00, 3.000000e+00>}
// CHECK: nn.neg %x {nn.range = array<f32: -3.000000e+00, 2.000000e+00>}
// CHECK: nn.matmul {{.*}} {nn.range = array<f32: -1.000000e+00, 5.500000e+00>}
/// A fake_quant (already quantized) gets no range.
// CHECK: nn.fake_quant %n {min = array<f32: -1.000000e+00>, max = array<f32: 1.000000e+00>, num_bits = 8 : i64} :

/// moving average, decay 0.5: relu [0, 1] then [0.5, 3] -> [0.25, 2];
/// neg [-1, 2] then [-3, -0.5] -> [-2, 0.75].
// EMA: nn.relu %x {nn.range = array<f32: 2.500000e-01, 2.000000e+00>}
// EMA: nn.neg %x {nn.range = array<f32: -2.000000e+00, 7.500000e-01>}

/// 25th and 75th percentiles (linear interpolation) of all values:
/// relu [0, 0.5, 1, 3] -> [0.375, 1.5]; neg [-3, -1, -0.5, 2] -> [-1.5, 0.125].
// PCT: nn.relu %x {nn.range = array<f32: 3.750000e-01, 1.500000e+00>}
// PCT: nn.neg %x {nn.range = array<f32: -1.500000e+00, 1.250000e-01>}

/// quantize after calibrate: the matmul gets its calibrated range.
// QUANT: %[[M:.*]] = nn.matmul
// QUANT-NEXT: nn.fake_quant %[[M]] {min = array<f32: -1.000000e+00>, max = array<f32: 5.500000e+00>, num_bits = 8 : i64}
// QUANT-NOT: nn.range

// MISSING: calibration inputs {{.*}}wrong_name.npz lack x (have y)
// METHOD: unknown calibration method 'histogram': use one of minmax, moving_average, percentile
func.func @main(%x: tensor<1x2xf32> {nn.name = "x"}) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) {
  %w = nn.constant dense<[[1.0, 2.0], [1.0, -1.0]]> : tensor<2x2xf32>
  %r = nn.relu %x : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %n = nn.neg %x : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %m = nn.matmul %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %q = nn.fake_quant %n {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  func.return %r, %n, %m, %q : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>
}

/// Only the entry function runs: a private function gets no ranges.
// CHECK-LABEL: func.func private @negative_not_run
// CHECK-NOT: nn.range
func.func private @negative_not_run(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %r = nn.relu %x : (tensor<1x2xf32>) -> tensor<1x2xf32>
  func.return %r : tensor<1x2xf32>
}
