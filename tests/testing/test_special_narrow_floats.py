"""bfloat16 and float8 (ml_dtypes, numpy kind "V") are floats everywhere:
the interpreter's kernels and the exporters apply the float semantics to
them, checked against onnxruntime's float32 computation rounded to the type
(`graph_opt/testing/special_narrow_floats.py`)."""

import ml_dtypes
import numpy as np
import onnx
import pytest
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, i64

from graph_opt.api import parse
from graph_opt.dialects.nn.dtypes import float_info, is_float_dtype
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import OPSET_ATTR
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


def _narrow_cases():
    from graph_opt.testing.special_narrow_floats import NARROW_FLOATS

    return [(d.name, n) for d, names in NARROW_FLOATS.items() for n in names]


@pytest.mark.parametrize("seed", range(6))  # seed 5 has NaNs for ArgMax/ArgMin
@pytest.mark.parametrize("dtype, name", _narrow_cases())
def test_narrow_float_op_agrees_with_rounded_float32(dtype, name, seed):
    from graph_opt.testing.special_narrow_floats import (
        check_narrow_case,
        narrow_case,
    )

    dtype = np.dtype(getattr(ml_dtypes, dtype))
    case = narrow_case(name, dtype, seed)
    verdict = check_narrow_case(case, dtype)
    assert verdict.state in (AGREE, TOLERANCE), f"{case.name}: {verdict.detail}"


@pytest.mark.parametrize(
    "dtype, bits",
    [(BF16, [0x7FD5, 0xFFAA, 0x3F80]), (ml_dtypes.float8_e5m2, [0x7D, 0xFE, 0x3C])],
)
def test_reference_keeps_nan_payloads(dtype, bits):
    from graph_opt.testing.special_narrow_floats import rounded, widened_values

    word = np.array(bits, f"u{np.dtype(dtype).itemsize}")
    wide = widened_values(word.view(dtype))
    assert (rounded(wide, np.dtype(dtype)).view(word.dtype) == word).all()


def test_float8_casts_to_integers_through_int32():
    module = parse("""
func.func @main(%x: tensor<4xf8E4M3FN>) -> tensor<4xui8> {
  %0 = nn.cast %x {to = ui8} : (tensor<4xf8E4M3FN>) -> tensor<4xui8>
  func.return %0 : tensor<4xui8>
}""")
    x = np.array([2, 448, -1.5, 7.5], ml_dtypes.float8_e4m3fn)
    assert run_function(module, [x])[0].tolist() == [2, 192, 255, 7]


def test_data_movement_keeps_nan_payloads():
    bits = np.array([0x7FD5, 0xFFAA, 0x3F80], np.uint16)
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


CLAMPED_CAST = """
func.func @main(%x: tensor<4xbf16>) -> tensor<4xi8> {
  %0 = nn.cast %x {to = i8, clamp_narrow} : (tensor<4xbf16>) -> tensor<4xi8>
  func.return %0 : tensor<4xi8>
}"""


def test_bfloat16_cast_clamps_narrow_integers():
    module = parse(CLAMPED_CAST)
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
    assert _exported_ops(CLAMPED_CAST) != ["Cast"]
    scalar = "tensor<bf16>"
    rng = _exported_ops(f"""
func.func @main(%s: {scalar}, %l: {scalar}, %d: {scalar}) -> tensor<?xbf16> {{
  %0 = nn.range %s, %l, %d : ({scalar}, {scalar}, {scalar}) -> tensor<?xbf16>
  func.return %0 : tensor<?xbf16>
}}""")
    assert rng != ["Range"] and "Mul" in rng  # start + i * delta


@pytest.mark.parametrize("element", ["bf16", "f8E4M3FN", "f8E5M2"])
@pytest.mark.parametrize("text", [ARG.replace("PROPS", ""), CLAMPED_CAST])
def test_narrow_float_semantics_export_in_float32(element, text):
    """Less, Max, Where and ArgMax have no float8 form in ONNX and no bfloat16
    kernel in onnxruntime: the input is widened first (exactly)."""
    module = parse(text.replace("bf16", element))
    module.attributes[OPSET_ATTR] = DictionaryAttr({"": IntegerAttr(21, i64)})
    model = export_module(module)  # float8 Cast: opset 19 on
    onnx.checker.check_model(model, full_check=True)
    first = model.graph.node[0]
    assert first.op_type == "Cast"
    assert first.attribute[0].i == onnx.TensorProto.FLOAT
