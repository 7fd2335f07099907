"""bfloat16 (ml_dtypes, numpy kind "V") is a float everywhere: the
interpreter's kernels and the exporters apply the float semantics to it,
checked against onnxruntime's float32 computation rounded to bfloat16
(`graph_opt/testing/special_bfloat16.py`)."""

import ml_dtypes
import numpy as np
import pytest

from graph_opt.api import parse
from graph_opt.dialects.nn.dtypes import float_info, is_float_dtype
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.interpreter.runner import run_function
from graph_opt.testing.special_differential import AGREE, TOLERANCE

pytest.importorskip("onnxruntime")

BF16 = ml_dtypes.bfloat16
NAN = np.nan


@pytest.mark.parametrize(
    "dtype",
    [np.float16, np.float32, BF16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2],
)
def test_every_float_dtype_is_a_float(dtype):
    assert is_float_dtype(dtype)
    assert float_info(dtype).max > 1


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.dtype("V2")])
def test_other_dtypes_are_not(dtype):
    assert not is_float_dtype(dtype)


@pytest.mark.parametrize("seed", range(6))  # seed 5 has NaNs for ArgMax/ArgMin
@pytest.mark.parametrize(
    "name",
    ["Relu", "Abs", "Neg", "Max", "Min", "Where", "Cast", "ArgMax", "ArgMin",
     "Clip", "Reshape", "Transpose", "Concat"],
)  # fmt: skip
def test_bfloat16_op_agrees_with_rounded_float32(name, seed):
    from graph_opt.testing.special_bfloat16 import (
        bfloat16_case,
        check_bfloat16_case,
    )

    case = bfloat16_case(name, seed)
    verdict = check_bfloat16_case(case)
    assert verdict.state in (AGREE, TOLERANCE), f"{case.name}: {verdict.detail}"


def test_data_movement_keeps_nan_payloads():
    from graph_opt.testing.special_bfloat16 import to_bfloat16

    bits = np.array([0x7FD5, 0xFFAA, 0x3F80], np.uint16)
    widened = bits.view(BF16).astype(np.float32)
    assert (to_bfloat16(widened).view(np.uint16) == bits).all()
    module = parse("""
func.func @main(%x: tensor<3x1xbf16>) -> tensor<1x3xbf16> {
  %0 = nn.transpose %x {perm = array<i64: 1, 0>} : (tensor<3x1xbf16>) -> tensor<1x3xbf16>
  func.return %0 : tensor<1x3xbf16>
}""")
    (out,) = run_function(module, [bits.view(BF16).reshape(3, 1)])
    assert (out.view(np.uint16).ravel() == bits).all()


ARG = """
func.func @main(%x: tensor<4xbf16>) -> tensor<1xi64> {
  %0 = nn.argmax %x {axis = 0 : i64, keepdims = 1 : i64PROPS} : (tensor<4xbf16>) -> tensor<1xi64>
  func.return %0 : tensor<1xi64>
}"""


@pytest.mark.parametrize("props, want", [(", scan_from_first", 0), ("", 3)])
def test_bfloat16_argmax_follows_its_scan(props, want):
    """onnxruntime's scan: a NaN first wins; TensorFlow's: NaN never wins."""
    x = np.array([NAN, 1, NAN, 5], BF16)
    module = parse(ARG.replace("PROPS", props))
    assert run_function(module, [x])[0].tolist() == [want]
    x = np.array([2, NAN, 1, 5], BF16)
    assert run_function(module, [x])[0].tolist() == [3]


def test_bfloat16_cast_clamps_narrow_integers():
    module = parse("""
func.func @main(%x: tensor<4xbf16>) -> tensor<4xi8> {
  %0 = nn.cast %x {to = i8, clamp_narrow} : (tensor<4xbf16>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}""")
    x = np.array([300, -300, NAN, 7.5], BF16)
    assert run_function(module, [x])[0].tolist() == [127, -128, -128, 7]


def test_bfloat16_max_pool_pads_with_minus_infinity():
    module = parse("""
func.func @main(%x: tensor<1x1x2x2xbf16>) -> tensor<1x1x2x2xbf16> {
  %0 = nn.max_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>} : (tensor<1x1x2x2xbf16>) -> tensor<1x1x2x2xbf16>
  func.return %0 : tensor<1x1x2x2xbf16>
}""")
    x = np.array([[[[-1, -2], [-3, -4]]]], BF16)
    assert run_function(module, [x])[0].ravel().tolist() == [-1, -2, -3, -4]


def _exported_ops(text: str) -> list[str]:
    return [n.op_type for n in export_module(parse(text)).graph.node]


def test_bfloat16_keeps_tensorflow_semantics_at_onnx_export():
    """ArgMax without scan_from_first, clamping casts and products for Range
    are exported as their exact constructions, as for float32."""
    assert _exported_ops(ARG.replace("PROPS", "")) != ["ArgMax"]
    cast = _exported_ops("""
func.func @main(%x: tensor<4xbf16>) -> tensor<4xi8> {
  %0 = nn.cast %x {to = i8, clamp_narrow} : (tensor<4xbf16>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}""")
    assert cast != ["Cast"]
    scalar = "tensor<bf16>"
    rng = _exported_ops(f"""
func.func @main(%s: {scalar}, %l: {scalar}, %d: {scalar}) -> tensor<?xbf16> {{
  %0 = nn.range %s, %l, %d : ({scalar}, {scalar}, {scalar}) -> tensor<?xbf16>
  func.return %0 : tensor<?xbf16>
}}""")
    assert rng != ["Range"] and "Mul" in rng  # start + i * delta
