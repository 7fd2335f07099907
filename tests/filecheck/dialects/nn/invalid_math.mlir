// RUN: graph-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @compare_element_types_differ(%a: tensor<3xf32>, %b: tensor<3xi32>) -> tensor<3xi1> {
  %0 = nn.greater %a, %b : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xi1>
  func.return %0 : tensor<3xi1>
}
// CHECK: operand element types differ: f32 and i32

// -----

/// A comparison gives i1, not its operands' element type.
func.func @compare_result_not_i1(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = nn.equal %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
// CHECK: result #0 has type tensor<3xf32>, but the operands imply tensor<3xi1>

// -----

func.func @compare_not_broadcastable(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<3xi1> {
  %0 = nn.less %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<3xi1>
  func.return %0 : tensor<3xi1>
}
// CHECK: shapes [2] and [3] are not broadcastable

// -----

func.func @logical_on_floats(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = nn.logical_and %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
// CHECK: expected i1 operands, got f32

// -----

func.func @logical_not_on_ints(%a: tensor<3xi8>) -> tensor<3xi8> {
  %0 = nn.logical_not %a : (tensor<3xi8>) -> tensor<3xi8>
  func.return %0 : tensor<3xi8>
}
// CHECK: expected an i1 operand, got i8

// -----

func.func @select_condition_not_i1(%c: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = nn.select %c, %x, %x : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
// CHECK: the condition must be i1, got f32

// -----

func.func @select_branches_differ(%c: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf16>) -> tensor<3xf32> {
  %0 = nn.select %c, %x, %y : (tensor<3xi1>, tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
// CHECK: branch element types differ: f32 and f16

// -----

func.func @select_shape(%c: tensor<2x1xi1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = nn.select %c, %x, %x : (tensor<2x1xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
// CHECK: result #0 has type tensor<3xf32>, but the operands imply tensor<2x3xf32>

// -----

func.func @is_nan_of_ints(%x: tensor<3xi32>) -> tensor<3xi1> {
  %0 = nn.is_nan %x : (tensor<3xi32>) -> tensor<3xi1>
  func.return %0 : tensor<3xi1>
}
// CHECK: expected a float tensor, got tensor<3xi32>

// -----

func.func @reduce_any_of_floats(%x: tensor<3xf32>) -> tensor<1xf32> {
  %0 = nn.reduce_any %x : (tensor<3xf32>) -> tensor<1xf32>
  func.return %0 : tensor<1xf32>
}
// CHECK: expected an i1 input, got f32

// -----

func.func @argmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xi64> {
  %0 = nn.argmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  func.return %0 : tensor<2x3xi64>
}
// CHECK: axis 2 is out of range for rank 2

// -----

func.func @argmax_output_type(%x: tensor<2x3xf32>) -> tensor<1x3xi8> {
  %0 = nn.argmax %x {output_type = i8} : (tensor<2x3xf32>) -> tensor<1x3xi8>
  func.return %0 : tensor<1x3xi8>
}
// CHECK: output_type must be i32 or i64, got i8

// -----

func.func @argmin_select_last_index(%x: tensor<2x3xf32>) -> tensor<1x3xi64> {
  %0 = nn.argmin %x {select_last_index = 2 : i64} : (tensor<2x3xf32>) -> tensor<1x3xi64>
  func.return %0 : tensor<1x3xi64>
}
// CHECK: select_last_index must be 0 or 1, got 2

// -----

/// Indices are i64 unless output_type says otherwise.
func.func @argmax_result_type(%x: tensor<2x3xf32>) -> tensor<1x3xi32> {
  %0 = nn.argmax %x : (tensor<2x3xf32>) -> tensor<1x3xi32>
  func.return %0 : tensor<1x3xi32>
}
// CHECK: result #0 has type tensor<1x3xi32>, but the operands imply tensor<1x3xi64>

// -----

func.func @nonzero_of_scalar(%x: tensor<f32>) -> tensor<0x?xi64> {
  %0 = nn.nonzero %x : (tensor<f32>) -> tensor<0x?xi64>
  func.return %0 : tensor<0x?xi64>
}
// CHECK: expected an input of rank 1 or more

// -----

func.func @mod_flag(%a: tensor<3xi32>) -> tensor<3xi32> {
  %0 = nn.mod %a, %a {fmod = 2 : i64} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  func.return %0 : tensor<3xi32>
}
// CHECK: fmod must be 0 or 1, got 2

// -----

func.func @cumsum_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.cumsum %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
// CHECK: axis 2 is out of range for rank 2
