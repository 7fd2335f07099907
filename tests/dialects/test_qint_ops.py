"""Integer ops: quantize/dequantize/qconv/qmatmul against onnxruntime's
QuantizeLinear/DequantizeLinear/ConvInteger/MatMulInteger, qconv_transpose
against its ConvTranspose of the zero-point-shifted integers (exact in float),
rescale against hand-computed TOSA apply_scale cases."""

from __future__ import annotations

import numpy as np
import pytest
from one_node_models import model_of, run_ort
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
    i8,
    i16,
    i32,
)
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import InterpretationError, VerifyException

from graph_opt.dialects.nn.base import i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.dtypes import element_type
from graph_opt.dialects.nn.qint import (
    DequantizeOp,
    QConvOp,
    QConvTransposeOp,
    QMatMulOp,
    QuantizeOp,
    RescaleOp,
    quantization_props,
    rescale_props,
)
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.interpreter import run_function
from graph_opt.testing.graph_builder import run_op

RNG = np.random.default_rng(7)
ui8 = IntegerType(8, Signedness.UNSIGNED)


def ints(low: int, high: int, *shape: int, dtype=np.int8) -> np.ndarray:
    return RNG.integers(low, high + 1, shape).astype(dtype)


@pytest.mark.parametrize(
    ("dtype", "mlir_type", "scale", "zero_point", "axis"),
    [
        (np.int8, i8, [0.05], [-7], None),
        (np.uint8, ui8, [0.03], [128], None),
        (np.int8, i8, [0.02, 0.1, 0.07], [0, 5, -9], 1),
    ],
)
def test_quantize_dequantize_match_onnxruntime(
    dtype, mlir_type, scale, zero_point, axis
):
    x = (RNG.standard_normal((2, 3, 4)) * 4).astype(np.float32)
    # Exact ties exercise round-half-to-even.
    x[0, 0, :2] = np.float32(scale[0]) * np.float32([2.5, -3.5])
    scale_a = np.asarray(scale, np.float32)
    zp_a = np.asarray(zero_point, dtype)
    per_axis = len(scale) > 1
    consts = {
        "s": scale_a if per_axis else scale_a[0],
        "z": zp_a if per_axis else zp_a[0],
    }
    attrs = {"axis": axis} if axis is not None else {}
    model, feeds = model_of("QuantizeLinear", {"x": x}, consts=consts, **attrs)
    (expected,) = run_ort(model, feeds)
    props = quantization_props(scale, zero_point, axis)
    quantized = run_op(QuantizeOp, [x], props, TensorType(mlir_type, x.shape))
    assert quantized.dtype == expected.dtype
    np.testing.assert_array_equal(quantized, expected)

    model, feeds = model_of(
        "DequantizeLinear", {"q": quantized}, consts=consts, **attrs
    )
    (expected,) = run_ort(model, feeds)
    np.testing.assert_array_equal(run_op(DequantizeOp, [quantized], props), expected)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "attrs"),
    [
        ((1, 3, 7, 6), (4, 3, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 1]}),
        ((2, 4, 6, 6), (4, 1, 3, 3), {"group": 4, "pads": [1, 0, 1, 2]}),
        ((1, 2, 5, 5), (3, 2, 2, 2), {"dilations": [2, 2]}),
    ],
)
def test_qconv_matches_conv_integer(x_shape, w_shape, attrs):
    x, w = ints(-128, 127, *x_shape), ints(-127, 127, *w_shape)
    x_zp, w_zp = np.int8(-11), np.int8(3)
    model, feeds = model_of(
        "ConvInteger", {"x": x}, consts={"w": w, "xz": x_zp, "wz": w_zp}, **attrs
    )
    (expected,) = run_ort(model, feeds)
    props = {"input_zp": i64_attr(-11), "weight_zp": i64_attr(3)}
    for name in ("pads", "strides", "dilations"):
        if name in attrs:
            props[name] = i64_array(attrs[name])
    if "group" in attrs:
        props["group"] = i64_attr(attrs["group"])
    bias = ints(-1000, 1000, w_shape[0], dtype=np.int32)
    out = run_op(QConvOp, [x, w, bias], props)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, expected + bias.reshape(1, -1, 1, 1))


def test_qconv_channels_last_matches_channels_first():
    x, w = ints(-128, 127, 1, 3, 6, 6), ints(-127, 127, 5, 3, 3, 3)
    props = {"input_zp": i64_attr(4), "pads": i64_array([1, 1, 1, 1])}
    nchw = run_op(QConvOp, [x, w], props)
    nhwc = run_op(
        QConvOp,
        [
            np.ascontiguousarray(x.transpose(0, 2, 3, 1)),
            np.ascontiguousarray(w.transpose(2, 3, 1, 0)),
        ],
        {**props, "data_layout": str_attr("NHWC")},
    )
    np.testing.assert_array_equal(nhwc, nchw.transpose(0, 2, 3, 1))


@pytest.mark.parametrize(
    ("w_shape", "attrs"),
    [
        ((3, 4, 3, 3), {"strides": [2, 2], "pads": [1, 0, 1, 1], "output_padding": [1, 1]}),
        ((4, 2, 2, 2), {"strides": [2, 1], "group": 2, "dilations": [1, 2]}),
    ],
)  # fmt: skip
def test_qconv_transpose_matches_conv_transpose_of_shifted_ints(w_shape, attrs):
    """Sums of at most 27 products of |v| <= 255 are exact in float32."""
    x, w = ints(-128, 127, 1, w_shape[0], 4, 5), ints(-128, 127, *w_shape)
    bias = ints(-1000, 1000, w_shape[1] * attrs.get("group", 1), dtype=np.int32)
    shifted = {"x": (x.astype(np.int64) + 11).astype(np.float32)}
    model, feeds = model_of(
        "ConvTranspose",
        shifted,
        consts={
            "w": (w.astype(np.int64) - 3).astype(np.float32),
            "b": bias.astype(np.float32),
        },
        **attrs,
    )
    (expected,) = run_ort(model, feeds)
    props = {"input_zp": i64_attr(-11), "weight_zp": i64_attr(3)}
    for name in ("pads", "strides", "dilations", "output_padding"):
        if name in attrs:
            props[name] = i64_array(attrs[name])
    if "group" in attrs:
        props["group"] = i64_attr(attrs["group"])
    out = run_op(QConvTransposeOp, [x, w, bias], props)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, expected.astype(np.int32))


def test_qconv_transpose_channels_last_matches_channels_first():
    x, w = ints(-128, 127, 1, 3, 4, 4), ints(-127, 127, 3, 2, 3, 3)
    props = {"input_zp": i64_attr(4), "strides": i64_array([2, 2])}
    nchw = run_op(QConvTransposeOp, [x, w], props)
    nhwc = run_op(
        QConvTransposeOp,
        [
            np.ascontiguousarray(x.transpose(0, 2, 3, 1)),
            np.ascontiguousarray(w.transpose(2, 3, 1, 0)),
        ],
        {**props, "data_layout": str_attr("NHWC")},
    )
    np.testing.assert_array_equal(nhwc, nchw.transpose(0, 2, 3, 1))


def test_qmatmul_matches_matmul_integer():
    a, b = ints(-128, 127, 2, 5, 7), ints(-128, 127, 7, 3)
    model, feeds = model_of(
        "MatMulInteger", {"a": a}, consts={"b": b, "az": np.int8(9), "bz": np.int8(-2)}
    )
    (expected,) = run_ort(model, feeds)
    out = run_op(QMatMulOp, [a, b], {"a_zp": i64_attr(9), "b_zp": i64_attr(-2)})
    np.testing.assert_array_equal(out, expected)


def rescale(x: np.ndarray, result_type, **kwargs) -> np.ndarray:
    args = {k: kwargs.pop(k) for k in ("multiplier", "shift")}
    props = rescale_props(args["multiplier"], args["shift"], **kwargs)
    return run_op(RescaleOp, [x], props, TensorType(result_type, x.shape))


def test_rescale_single_round_hand_computed():
    # multiplier 2^30, shift 31: x * 0.5, ties round up (towards +inf).
    x = np.array([0, 1, 2, 3, -1, -2, -3, 5, -5, 1000, -1000], np.int32)
    out = rescale(x, i8, multiplier=[1 << 30], shift=[31])
    np.testing.assert_array_equal(out, [0, 1, 1, 2, 0, -1, -1, 3, -2, 127, -128])


def test_rescale_double_round_hand_computed():
    # x * 0.375 with shift 32 (> 31): double rounding rounds ties away from zero,
    # single rounding rounds them up: -1.5 -> -2 and -1.
    x = np.array([4, -4, 12, -12, 100, -100], np.int32)
    multiplier = 3 << 29  # 0.375 * 2^32
    double = rescale(
        x, i32, multiplier=[multiplier], shift=[32], rounding_mode="DOUBLE_ROUND"
    )
    single = rescale(x, i32, multiplier=[multiplier], shift=[32])
    np.testing.assert_array_equal(double, [2, -2, 5, -5, 38, -38])
    np.testing.assert_array_equal(single, [2, -1, 5, -4, 38, -37])


def test_rescale_zero_points_per_channel_and_saturation():
    # Per channel along the last dim: scales 0.5 and 0.25; zero points -3 in, 10 out.
    x = np.array([[-3, -3], [5, 5], [127, 127], [-128, -128]], np.int8)
    out = rescale(
        x,
        i8,
        multiplier=[1 << 30, 1 << 30],
        shift=[31, 32],
        input_zp=-3,
        output_zp=10,
        per_channel=True,
    )
    # (x + 3) * s + 10, rounded half up, saturated to [-128, 127]
    np.testing.assert_array_equal(out, [[10, 10], [14, 12], [75, 43], [-52, -21]])
    big = rescale(np.array([100, -100], np.int8), i8, multiplier=[1 << 30], shift=[28])
    np.testing.assert_array_equal(big, [127, -128])


def test_rescale_unsigned_in_and_out():
    # ui8 with zero point 128 to i8 with zero point 0: the identity shifted by -128.
    u = np.array([0, 1, 128, 255], np.uint8)
    out = rescale(
        u, i8, multiplier=[1 << 30], shift=[30], input_zp=128, input_unsigned=True
    )
    np.testing.assert_array_equal(out, [-128, -127, 0, 127])
    # Signless i8 storage read as unsigned: bits 0xFF are 255.
    s = np.array([-1, 0], np.int8)
    out = rescale(
        s, i8, multiplier=[1 << 30], shift=[30], input_zp=128, input_unsigned=True
    )
    np.testing.assert_array_equal(out, [127, -128])
    back = rescale(
        out, ui8, multiplier=[1 << 30], shift=[30], output_zp=128, output_unsigned=True
    )
    np.testing.assert_array_equal(back, [255, 0])


def test_rescale_scale16():
    x = np.array([3, -3, 1000], np.int16)
    out = rescale(x, i8, multiplier=[1 << 14], shift=[15], scale32=False)
    np.testing.assert_array_equal(out, [2, -1, 127])
    wide = rescale(
        np.array([-7], np.int8), i16, multiplier=[3 << 13], shift=[14], scale32=False
    )
    np.testing.assert_array_equal(wide, [-10])  # -7 * 1.5 = -10.5, half up


def test_rescale_value_beyond_apply_scale_32_range_is_an_error():
    with pytest.raises(InterpretationError, match="apply_scale_32's range"):
        rescale(np.array([1 << 20], np.int32), i32, multiplier=[1 << 30], shift=[10])


def test_rescale_rejects_i16_multiplier_with_scale32():
    block = Block(arg_types=[TensorType(i32, [2])])
    props = rescale_props([5], [10])
    props["multiplier"] = rescale_props([5], [10], scale32=False)["multiplier"]
    op = RescaleOp.create_inferred(list(block.args), props, [TensorType(i16, [2])])
    with pytest.raises(VerifyException, match="array<i32> when scale32 = 1"):
        op.verify()


@pytest.mark.parametrize(
    "mlir_type, scale, zero_point, axis",
    [
        (i8, [0.05], [3], None),
        (ui8, [0.1], [128], None),
        (i8, [0.02, 0.05, 0.1], [0, -4, 7], 1),
    ],
)
def test_quantize_dequantize_export_runs_in_onnxruntime(
    mlir_type, scale, zero_point, axis
):
    x = (RNG.standard_normal((2, 3, 4)) * 4).astype(np.float32)
    block = Block(arg_types=[TensorType(element_type(x.dtype), x.shape)])
    props = quantization_props(scale, zero_point, axis)
    quantize = QuantizeOp.create_inferred(
        [block.args[0]], props, [TensorType(mlir_type, x.shape)]
    )
    dequantize = DequantizeOp.create_inferred([quantize.results[0]], props)
    block.add_ops([quantize, dequantize, func.ReturnOp(dequantize.results[0])])
    function = func.FuncOp(
        "main", ([block.args[0].type], [dequantize.results[0].type]), Region(block)
    )
    module = ModuleOp([function])
    module.verify()
    exported = export_module(module)
    assert [n.op_type for n in exported.graph.node] == [
        "QuantizeLinear",
        "DequantizeLinear",
    ]
    (ours,) = run_function(module, [x])
    (theirs,) = run_ort(exported, {exported.graph.input[0].name: x})
    np.testing.assert_array_equal(ours, theirs)
