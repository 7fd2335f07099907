// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/tf_slices.pbtxt | filecheck %s

/// Slice: size -1 runs to the end (INT64_MAX, which nn.slice clamps).
// CHECK-LABEL: func.func @main(%x: tensor<4x5x6xf32> {nn.name = "x"})
// CHECK:         %[[S0:.*]] = nn.constant dense<[1, 0, 2]> : tensor<3xi64>
// CHECK-NEXT:    %[[E0:.*]] = nn.constant dense<[3, 9223372036854775807, 5]> : tensor<3xi64>
// CHECK-NEXT:    %[[A0:.*]] = nn.constant dense<[0, 1, 2]> : tensor<3xi64>
// CHECK-NEXT:    %[[T0:.*]] = nn.constant dense<1> : tensor<3xi64>
// CHECK-NEXT:    %Slice = nn.slice %x, %[[S0]], %[[E0]], %[[A0]], %[[T0]] {{.*}} -> tensor<2x5x3xf32>

/// x[1:3, ::2, -4:]: end_mask bits end at INT64_MAX; negative begins stay (nn.slice counts them from the end).
// CHECK:         nn.constant dense<[1, 0, -4]> : tensor<3xi64>
// CHECK-NEXT:    nn.constant dense<[3, 9223372036854775807, 9223372036854775807]> : tensor<3xi64>
// CHECK:         %strided_slice = nn.slice %x, {{.*}} -> tensor<2x3x4xf32>

/// x[::-1, 3:0:-2, :]: a masked begin of a negative stride starts at the end,
/// a masked end stops before the start (INT64_MIN); the whole last dim is not sliced.
// CHECK:         nn.constant dense<[9223372036854775807, 3]> : tensor<2xi64>
// CHECK-NEXT:    nn.constant dense<[-9223372036854775808, 0]> : tensor<2xi64>
// CHECK-NEXT:    nn.constant dense<[0, 1]> : tensor<2xi64>
// CHECK-NEXT:    nn.constant dense<[-1, -2]> : tensor<2xi64>
// CHECK-NEXT:    %strided_slice_1 = nn.slice %x, {{.*}} -> tensor<4x2x6xf32>

/// x[..., 1]: the ellipsis covers dims 0 and 1; shrink_axis is a unit slice, then nn.squeeze.
// CHECK:         %[[SHRUNK:.*]] = nn.slice %x, {{.*}} -> tensor<4x5x1xf32>
// CHECK-NEXT:    %strided_slice_2 = nn.squeeze %[[SHRUNK]] {axes = array<i64: 2>} : (tensor<4x5x1xf32>) -> tensor<4x5xf32>

/// x[:, tf.newaxis, 2:]: new_axis consumes no input dim and becomes nn.unsqueeze.
// CHECK:         %[[NARROW:.*]] = nn.slice %x, {{.*}} -> tensor<4x3x6xf32>
// CHECK-NEXT:    %strided_slice_3 = nn.unsqueeze %[[NARROW]] {axes = array<i64: 1>} : (tensor<4x3x6xf32>) -> tensor<4x1x3x6xf32>

/// x[-1, ..., tf.newaxis, ::-3]: shrinking index -1 ends at INT64_MAX (not 0).
// CHECK:         nn.constant dense<[-1, 9223372036854775807]> : tensor<2xi64>
// CHECK-NEXT:    nn.constant dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>
// CHECK-NEXT:    nn.constant dense<[0, 2]> : tensor<2xi64>
// CHECK-NEXT:    nn.constant dense<[1, -3]> : tensor<2xi64>
// CHECK-NEXT:    %[[LAST:.*]] = nn.slice %x, {{.*}} -> tensor<1x5x2xf32>
// CHECK-NEXT:    %[[SQ:.*]] = nn.squeeze %[[LAST]] {axes = array<i64: 0>}
// CHECK-NEXT:    %strided_slice_4 = nn.unsqueeze %[[SQ]] {axes = array<i64: 1>} : (tensor<5x2xf32>) -> tensor<5x1x2xf32>

/// x[1, -2]: two shrunk axes.
// CHECK:         %strided_slice_5 = nn.squeeze %{{.*}} {axes = array<i64: 0, 1>} : (tensor<1x1x6xf32>) -> tensor<6xf32>

/// x[..., :-1, 2:5]: the ellipsis stands for dim 0 only.
// CHECK:         nn.constant dense<[0, 2]> : tensor<2xi64>
// CHECK-NEXT:    nn.constant dense<[-1, 5]> : tensor<2xi64>
// CHECK-NEXT:    nn.constant dense<[1, 2]> : tensor<2xi64>
// CHECK:         %strided_slice_6 = nn.slice %x, {{.*}} -> tensor<4x4x3xf32>

/// x[2:, tf.newaxis, 1, ...]: the shrunk dim 1 goes, a new dim 1 comes.
// CHECK:         %[[MID:.*]] = nn.squeeze %{{.*}} {axes = array<i64: 1>} : (tensor<2x1x6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT:    %strided_slice_7 = nn.unsqueeze %[[MID]] {axes = array<i64: 1>} : (tensor<2x6xf32>) -> tensor<2x1x6xf32>

/// x[-7:100, -100:-1:2, ::-1]: out-of-range bounds are kept for nn.slice to clamp as TensorFlow does.
// CHECK:         nn.constant dense<[-7, -100, 9223372036854775807]> : tensor<3xi64>
// CHECK-NEXT:    nn.constant dense<[100, -1, -9223372036854775808]> : tensor<3xi64>
// CHECK:         %strided_slice_8 = nn.slice %x, {{.*}} -> tensor<4x2x6xf32>
