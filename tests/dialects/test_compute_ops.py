"""Compute ops (conv_transpose, matmul, gemm, layer_norm, softmax, pooling,
reductions): ONNX import as first-class ops, our interpreter against onnxruntime,
and the exported model run again in onnxruntime."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from one_node_models import (
    assert_outputs_close,
    check_against_ort,
    model_of,
    op_names,
    rand,
    run_ort,
)
from xdsl.dialects.builtin import (
    DictionaryAttr,
)

from graph_opt.dialects.nn.base import i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.conv import ConvTransposeOp
from graph_opt.dialects.nn.pool import AvgPoolOp, GlobalAvgPoolOp, MaxPoolOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import OPSET_ATTR, import_model
from graph_opt.testing.graph_builder import run_op

X4 = rand(2, 4, 7, 6)
X3 = rand(2, 3, 9)

CONV_TRANSPOSE = {
    "plain": ({"x": rand(1, 3, 5, 4)}, {"w": rand(3, 2, 3, 3)}, {}),
    "bias_strides_pads": (
        {"x": rand(2, 4, 4, 5)},
        {"w": rand(4, 3, 3, 2), "b": rand(3)},
        dict(strides=[2, 3], pads=[1, 0, 2, 1]),
    ),
    "groups_dilations": (
        {"x": rand(1, 4, 5, 5)},
        {"w": rand(4, 3, 2, 3)},
        dict(group=2, dilations=[2, 1]),
    ),
    "output_padding": (
        {"x": rand(1, 2, 4, 4)},
        {"w": rand(2, 2, 3, 3)},
        dict(strides=[2, 2], output_padding=[1, 0], pads=[1, 1, 1, 1]),
    ),
    "same_upper": (
        {"x": rand(1, 2, 5, 4)},
        {"w": rand(2, 3, 4, 3)},
        dict(strides=[2, 2], auto_pad="SAME_UPPER"),
    ),
    "same_lower": (
        {"x": rand(1, 2, 5, 4)},
        {"w": rand(2, 3, 4, 3)},
        dict(strides=[2, 2], auto_pad="SAME_LOWER"),
    ),
    "output_shape": (
        {"x": rand(1, 2, 5)},
        {"w": rand(2, 3, 4)},
        dict(strides=[2], output_shape=[10]),
    ),
    "output_shape_beyond_full": (  # full output 9 x 7: zeros added at the end
        {"x": rand(1, 1, 3, 3)},
        {"w": rand(1, 2, 3, 3)},
        dict(strides=[3, 2], output_shape=[10, 8]),
    ),
    "output_shape_beyond_full_bias_dilations": (
        {"x": rand(1, 2, 4, 3)},
        {"w": rand(2, 3, 2, 3), "b": rand(3)},
        dict(strides=[2, 1], dilations=[1, 2], output_shape=[9, 7]),
    ),
    "valid_1d": ({"x": X3}, {"w": rand(3, 2, 3)}, dict(auto_pad="VALID")),
}


@pytest.mark.parametrize("case", CONV_TRANSPOSE)
def test_conv_transpose(case):
    feeds, consts, attrs = CONV_TRANSPOSE[case]
    model, feeds = model_of("ConvTranspose", feeds, 18, consts, **attrs)
    check_against_ort(model, feeds, "nn.conv_transpose")


MATMUL = {
    "2d": (rand(3, 4), rand(4, 5)),
    "batch_broadcast": (rand(2, 1, 3, 4), rand(3, 4, 2)),
    "vector_lhs": (rand(4), rand(2, 4, 3)),
    "vector_rhs": (rand(2, 3, 4), rand(4)),
    "vectors": (rand(4), rand(4)),
}


@pytest.mark.parametrize("case", MATMUL)
def test_matmul(case):
    a, b = MATMUL[case]
    model, feeds = model_of("MatMul", {"a": a, "b": b}, 13)
    check_against_ort(model, feeds, "nn.matmul")


GEMM = {
    "plain": ({"a": rand(3, 4)}, {"b": rand(4, 5)}, 13, {}),
    "trans_b_bias_row": (
        {"a": rand(3, 4)},
        {"b": rand(5, 4), "c": rand(5)},
        13,
        dict(transB=1, alpha=0.5, beta=2.0),
    ),
    "trans_a_bias_full": (
        {"a": rand(4, 3), "c": rand(3, 5)},
        {"b": rand(4, 5)},
        13,
        dict(transA=1),
    ),
    "scalar_c_opset9": (
        {"a": rand(3, 4)},
        {"b": rand(4, 2), "c": rand(1)},
        9,
        dict(beta=-1.0),
    ),
}


@pytest.mark.parametrize("case", GEMM)
def test_gemm(case):
    feeds, consts, opset, attrs = GEMM[case]
    inputs = [n for n in ("a", "b", "c") if n in feeds or n in consts]
    model, feeds = model_of("Gemm", feeds, opset, consts, inputs, **attrs)
    check_against_ort(model, feeds, "nn.gemm")


def test_gemm_without_c_exports_to_opset_9_with_a_zero_c():
    model, feeds = model_of("Gemm", {"a": rand(3, 4)}, 13, {"b": rand(4, 2)})
    module = import_model(model)
    module.attributes[OPSET_ATTR] = DictionaryAttr({"": i64_attr(9)})
    exported = export_module(module)
    onnx.checker.check_model(exported)
    (gemm,) = [n for n in exported.graph.node if n.op_type == "Gemm"]
    assert len(gemm.input) == 3
    assert_outputs_close(run_ort(exported, feeds), run_ort(model, feeds))


LAYER_NORM = {
    "last_axis_bias": ({"x": rand(2, 3, 4)}, {"s": rand(4), "b": rand(4)}, {}),
    "axis_1_no_bias": ({"x": rand(2, 3, 4)}, {"s": rand(3, 4)}, dict(axis=1)),
    "negative_axis_eps": (
        {"x": rand(2, 3, 4)},
        {"s": rand(3, 4), "b": rand(3, 4)},
        dict(axis=-2, epsilon=1e-2),
    ),
}


@pytest.mark.parametrize("case", LAYER_NORM)
def test_layer_norm(case):
    feeds, consts, attrs = LAYER_NORM[case]
    model, feeds = model_of("LayerNormalization", feeds, 17, consts, **attrs)
    check_against_ort(model, feeds, "nn.layer_norm")


def test_layer_norm_with_mean_output_stays_opaque():
    model, _ = model_of(
        "LayerNormalization", {"x": rand(2, 3)}, 17, {"s": rand(3)}, outputs=2
    )
    names = op_names(import_model(model))
    assert "nn.opaque" in names and "nn.layer_norm" not in names


SOFTMAX = {
    "opset13_default": ({"x": rand(2, 3, 4)}, 13, {}),
    "opset13_axis1": ({"x": rand(2, 3, 4)}, 13, dict(axis=1)),
    "opset11_last": ({"x": rand(2, 3, 4)}, 11, dict(axis=2)),
    "opset11_default_rank2": ({"x": rand(3, 5)}, 11, {}),
}


@pytest.mark.parametrize("case", SOFTMAX)
def test_softmax(case):
    feeds, opset, attrs = SOFTMAX[case]
    model, feeds = model_of("Softmax", feeds, opset, **attrs)
    check_against_ort(model, feeds, "nn.softmax")


def test_softmax_before_opset_13_not_on_last_axis_stays_opaque():
    model, feeds = model_of("Softmax", {"x": rand(2, 3, 4)}, 11, axis=1)
    module = import_model(model)
    assert "nn.softmax" not in op_names(module)
    assert_outputs_close(run_ort(export_module(module), feeds), run_ort(model, feeds))


def test_softmax_not_on_last_axis_does_not_export_before_opset_13():
    model, _ = model_of("Softmax", {"x": rand(2, 3, 4)}, 13, axis=1)
    module = import_model(model)
    module.attributes[OPSET_ATTR] = DictionaryAttr({"": i64_attr(11)})
    with pytest.raises(FrontendError, match="only normalizes over the last axis"):
        export_module(module)


MAX_POOL = {
    "plain": dict(kernel_shape=[2, 2]),
    "strides_pads": dict(kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1]),
    "dilations": dict(kernel_shape=[2, 2], dilations=[2, 2], strides=[1, 2]),
    "ceil_mode": dict(kernel_shape=[2, 3], strides=[2, 2], ceil_mode=1),
    "ceil_mode_drops_pad_window": dict(
        kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 1, 1], ceil_mode=1
    ),
    "same_upper": dict(kernel_shape=[3, 2], strides=[2, 2], auto_pad="SAME_UPPER"),
    "same_lower": dict(kernel_shape=[3, 2], strides=[2, 2], auto_pad="SAME_LOWER"),
}


@pytest.mark.parametrize("case", MAX_POOL)
def test_max_pool(case):
    model, feeds = model_of("MaxPool", {"x": X4}, 12, **MAX_POOL[case])
    check_against_ort(model, feeds, "nn.max_pool")


def test_max_pool_1d():
    model, feeds = model_of("MaxPool", {"x": X3}, 12, kernel_shape=[3], strides=[2])
    check_against_ort(model, feeds, "nn.max_pool")


def test_max_pool_with_indices_stays_opaque():
    model, _ = model_of("MaxPool", {"x": X4}, 12, outputs=2, kernel_shape=[2, 2])
    assert "nn.max_pool" not in op_names(import_model(model))


AVG_POOL = {
    "plain": dict(kernel_shape=[2, 2]),
    "pads_excluded": dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
    "pads_included": dict(
        kernel_shape=[3, 3], pads=[1, 0, 2, 1], count_include_pad=1
    ),
    "ceil_mode_included": dict(
        kernel_shape=[3, 2], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1,
        count_include_pad=1,
    ),
    "ceil_mode_excluded": dict(kernel_shape=[2, 3], strides=[2, 2], ceil_mode=1),
    "same_upper": dict(kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER"),
}  # fmt: skip


@pytest.mark.parametrize("case", AVG_POOL)
def test_avg_pool(case):
    model, feeds = model_of("AveragePool", {"x": X4}, 18, **AVG_POOL[case])
    check_against_ort(model, feeds, "nn.avg_pool")


@pytest.mark.parametrize(
    "x", [X3, X4, rand(1, 2, 3, 4, 5)], ids=lambda x: f"rank{x.ndim}"
)
def test_global_avg_pool(x):
    model, feeds = model_of("GlobalAveragePool", {"x": x}, 13)
    check_against_ort(model, feeds, "nn.global_avg_pool")


REDUCE_OPS = ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"]
AXES = np.array([0, -1], np.int64)


@pytest.mark.parametrize("op_type", REDUCE_OPS)
@pytest.mark.parametrize(
    "form", ["attr_opset11", "attr_keepdims0", "input_opset18", "all_axes"]
)
def test_reduce(op_type, form):
    x = {"x": rand(2, 3, 4)}
    if form == "attr_opset11":
        model, feeds = model_of(op_type, x, 11, axes=[0, -1])
    elif form == "attr_keepdims0":
        model, feeds = model_of(op_type, x, 11, axes=[1], keepdims=0)
    elif form == "input_opset18":
        model, feeds = model_of(op_type, x, 18, {"axes": AXES}, keepdims=0)
    else:
        model, feeds = model_of(op_type, x, 18)
    check_against_ort(model, feeds, f"nn.{op_type[:6].lower()}_{op_type[6:].lower()}")


def test_reduce_sum_axes_input_from_opset_13():
    model, feeds = model_of("ReduceSum", {"x": rand(2, 3, 4)}, 13, {"axes": AXES})
    check_against_ort(model, feeds, "nn.reduce_sum")


def test_reduce_noop_with_empty_axes_is_identity_in_old_opsets():
    model, feeds = model_of("ReduceMax", {"x": rand(2, 3)}, 18, noop_with_empty_axes=1)
    module = check_against_ort(model, feeds, "nn.reduce_max")
    module.attributes[OPSET_ATTR] = DictionaryAttr({"": i64_attr(13)})
    exported = export_module(module)
    assert {n.op_type for n in exported.graph.node} == {"Identity"}
    assert_outputs_close(run_ort(exported, feeds), [feeds["x"]])


def test_reduce_with_runtime_axes_stays_opaque():
    model, _ = model_of(
        "ReduceMean",
        {"x": rand(2, 3), "axes": np.array([1], np.int64)},
        18,
    )
    assert "nn.reduce_mean" not in op_names(import_model(model))


def test_invalid_attributes_give_a_frontend_error():
    model, _ = model_of("MaxPool", {"x": X4}, 12, kernel_shape=[2, 2, 2])
    with pytest.raises(FrontendError, match="kernel_shape needs 2 positive values"):
        import_model(model, validate=False)
    with pytest.raises(FrontendError, match="kernel_shape has incorrect size"):
        import_model(model)  # validation refuses it first, as onnxruntime does


def nhwc(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.moveaxis(x, 1, -1))


CHANNELS_LAST_CASES = {
    "conv_transpose": (
        ConvTransposeOp,
        [rand(2, 4, 5, 4), rand(4, 3, 3, 2), rand(6)],
        dict(strides=i64_array([2, 1]), pads=i64_array([1, 0, 0, 1]), group=i64_attr(2)),
    ),
    "conv_transpose_same": (
        ConvTransposeOp,
        [rand(1, 2, 5, 4), rand(2, 3, 4, 3)],
        dict(strides=i64_array([2, 2]), auto_pad=str_attr("SAME_LOWER")),
    ),
    "max_pool": (
        MaxPoolOp,
        [X4],
        dict(kernel_shape=i64_array([3, 2]), strides=i64_array([2, 2]), ceil_mode=i64_attr(1)),
    ),
    "avg_pool": (
        AvgPoolOp,
        [X4],
        dict(kernel_shape=i64_array([3, 3]), pads=i64_array([1, 1, 1, 1])),
    ),
    "global_avg_pool": (GlobalAvgPoolOp, [X4], {}),
}  # fmt: skip


@pytest.mark.parametrize("case", CHANNELS_LAST_CASES)
def test_channels_last_equals_channels_first_on_transposed_data(case):
    op_class, operands, props = CHANNELS_LAST_CASES[case]
    expected = run_op(op_class, operands, props)
    x, *rest = operands
    if op_class is ConvTransposeOp:
        # IOHW -> HWOI; the bias stays a vector.
        rest = [np.ascontiguousarray(np.moveaxis(rest[0], (0, 1), (-1, -2))), *rest[1:]]
    layout = {"data_layout": str_attr("NHWC")}
    got = run_op(op_class, [nhwc(x), *rest], {**props, **layout})
    np.testing.assert_allclose(got, nhwc(expected), rtol=1e-5, atol=1e-5)
