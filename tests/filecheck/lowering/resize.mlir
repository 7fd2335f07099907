// RUN: graph-opt %s --split-input-file --verify-diagnostics -p lower-to-tosa | filecheck %s

/// Nearest 2x, half_pixel, round_prefer_floor: scale n / d = 4 / 2 per axis, offset
/// (d - n) / 2 = -1 moved by -1 from TOSA's round-half-up; NCHW is transposed around it.
// CHECK-LABEL: func.func @resize_nearest_2x
func.func @resize_nearest_2x(%x: tensor<1x2x4x6xf32>) -> tensor<1x2x8x12xf32> {
  // CHECK: %[[X:.*]] = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>}
  // CHECK-DAG: %[[S:.*]] = "tosa.const_shape"() <{values = dense<[4, 2, 4, 2]> : tensor<4xindex>}>
  // CHECK-DAG: %[[O:.*]] = "tosa.const_shape"() <{values = dense<-2> : tensor<2xindex>}>
  // CHECK-DAG: %[[B:.*]] = "tosa.const_shape"() <{values = dense<0> : tensor<2xindex>}>
  // CHECK: %[[R:.*]] = tosa.resize %[[X]], %[[S]], %[[O]], %[[B]] {mode = #tosa.resize_mode<NEAREST_NEIGHBOR>} : (tensor<1x4x6x2xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x8x12x2xf32>
  // CHECK: tosa.transpose %[[R]] {perms = array<i32: 0, 3, 1, 2>}
  %a = nn.resize %x {sizes = array<i64: 1, 2, 8, 12>, mode = "nearest"} : (tensor<1x2x4x6xf32>) -> tensor<1x2x8x12xf32>
  func.return %a : tensor<1x2x8x12xf32>
}

// -----

/// Bilinear NHWC with align_corners: scale (out - 1) / (in - 1) = 6 / 3 -> 4 / 2, no offset.
// CHECK-LABEL: func.func @resize_bilinear_align_corners
func.func @resize_bilinear_align_corners(%x: tensor<1x4x4x3xf32>) -> tensor<1x7x7x3xf32> {
  // CHECK-DAG: %[[S:.*]] = "tosa.const_shape"() <{values = dense<[4, 2, 4, 2]> : tensor<4xindex>}>
  // CHECK: tosa.resize %x, %[[S]], %{{.*}}, %{{.*}} {mode = #tosa.resize_mode<BILINEAR>} : {{.*}} -> tensor<1x7x7x3xf32>
  %a = nn.resize %x {sizes = array<i64: 1, 7, 7, 3>, mode = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x4x4x3xf32>) -> tensor<1x7x7x3xf32>
  func.return %a : tensor<1x7x7x3xf32>
}

// -----

/// A scale TOSA cannot hold (n above 2048) still refuses, naming why.
func.func @negative_resize_scale_out_of_range(%x: tensor<1x1x1x1xf32>) -> tensor<1x1x1x1500xf32> {
  %a = nn.resize %x {sizes = array<i64: 1, 1, 1, 1500>} : (tensor<1x1x1x1xf32>) -> tensor<1x1x1x1500xf32>
  func.return %a : tensor<1x1x1x1500xf32>
}
// CHECK: lower-to-tosa: cannot lower nn.resize at {{.*}}: scale 1500/1 is out of TOSA's range
