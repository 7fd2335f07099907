"""Comparisons, logical ops, select, unary math and the new reductions: ONNX
import as first-class ops, our interpreter against onnxruntime, the exported
model run again in onnxruntime; ops ONNX lacks against numpy."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from one_node_models import (
    assert_outputs_close,
    check_against_ort,
    model_of,
    rand,
    run_ort,
)
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, DictionaryAttr, IntegerAttr, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser

from graph_opt.dialects.nn import NN
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import OPSET_ATTR, import_model
from graph_opt.interpreter import run_function

A, B = rand(2, 3, 4), rand(3, 1)
INTS = np.array([[1, 5, -2], [3, 3, 0]], np.int32)
P = np.array([[True, False, True], [False, False, True]])
Q = np.array([True, False, False])
SPECIAL = np.array([0.5, -np.inf, np.nan, np.inf, -2.0, 0.0], np.float32)
TIES = np.array([[1, 3, 3, 0], [2, 2, 1, 2], [0, 0, 0, 0]], np.float32)


def with_opset(module: ModuleOp, opset: int) -> ModuleOp:
    module.attributes[OPSET_ATTR] = DictionaryAttr({"": IntegerAttr(opset, 64)})
    return module


COMPARISONS = {
    "Equal": "nn.equal",
    "Greater": "nn.greater",
    "Less": "nn.less",
    "GreaterOrEqual": "nn.greater_equal",
    "LessOrEqual": "nn.less_equal",
}


@pytest.mark.parametrize("op_type", COMPARISONS)
@pytest.mark.parametrize(
    "feeds",
    [
        {"a": A, "b": B},
        {"a": INTS, "b": np.array([3], np.int32)},
        {"a": A, "b": np.round(A)},  # some equal elements
    ],
    ids=["float_broadcast", "int", "float_equal_elements"],
)
def test_comparison(op_type, feeds):
    feeds = dict(feeds)
    if op_type != "Equal":  # make equal elements
        feeds["b"] = np.where(rand(*feeds["b"].shape) > 0, feeds["b"], 3).astype(
            feeds["b"].dtype
        )
    check_against_ort(*model_of(op_type, feeds), COMPARISONS[op_type])


@pytest.mark.parametrize("op_type", ["GreaterOrEqual", "LessOrEqual"])
def test_or_equal_exports_as_not_of_the_strict_opposite_before_opset_12(op_type):
    x = np.array([1, 2, 3], np.float32)
    model, feeds = model_of(op_type, {"a": x, "b": np.array([2], np.float32)})
    module = with_opset(import_model(model), 11)
    exported = export_module(module)
    onnx.checker.check_model(exported)
    opposite = "Less" if op_type == "GreaterOrEqual" else "Greater"
    assert [n.op_type for n in exported.graph.node] == [opposite, "Not"]
    assert_outputs_close(run_ort(exported, feeds), run_ort(model, feeds))


@pytest.mark.parametrize(
    "op_type, op_name", [("And", "nn.logical_and"), ("Or", "nn.logical_or"),
                         ("Xor", "nn.logical_xor")],
)  # fmt: skip
def test_logical_binary(op_type, op_name):
    check_against_ort(*model_of(op_type, {"p": P, "q": Q}), op_name)


def test_logical_not():
    check_against_ort(*model_of("Not", {"p": P}), "nn.logical_not")


@pytest.mark.parametrize(
    "feeds",
    [
        {"c": P, "x": rand(2, 3), "y": rand(2, 3)},
        {"c": Q, "x": rand(2, 1), "y": np.array(7.0, np.float32)},
        {"c": P, "x": INTS, "y": np.array([-1], np.int32)},
    ],
    ids=["same_shape", "broadcast_three_ways", "int_branches"],
)
def test_where_is_select(feeds):
    check_against_ort(*model_of("Where", feeds), "nn.select")


@pytest.mark.parametrize(
    "x", [P, 3 * A, INTS, np.zeros((2, 2), np.float32)],
    ids=["bool", "float", "int", "none"],
)  # fmt: skip
def test_nonzero(x):
    check_against_ort(*model_of("NonZero", {"x": x}), "nn.nonzero")


UNARY = {
    "Sin": ("nn.sin", A), "Cos": ("nn.cos", A), "Tan": ("nn.tan", A),
    "Asin": ("nn.asin", np.tanh(A)), "Acos": ("nn.acos", np.tanh(A)),
    "Atan": ("nn.atan", A), "Sinh": ("nn.sinh", A), "Cosh": ("nn.cosh", A),
    "Asinh": ("nn.asinh", A), "Acosh": ("nn.acosh", 1 + np.abs(A)),
    "Atanh": ("nn.atanh", 0.9 * np.tanh(A)), "Floor": ("nn.floor", 3 * A),
    "Ceil": ("nn.ceil", 3 * A),
    "Round": ("nn.round", np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1.2, -2.7], np.float32)),
    "Sign": ("nn.sign", np.array([[-2.0, 0.0, 3.0]], np.float32)),
    "Softplus": ("nn.softplus", 10 * A), "Softsign": ("nn.softsign", A),
    "HardSwish": ("nn.hard_swish", 4 * A), "IsNaN": ("nn.is_nan", SPECIAL),
    "IsInf": ("nn.is_inf", SPECIAL), "Elu": ("nn.elu", A), "Selu": ("nn.selu", A),
    "HardSigmoid": ("nn.hard_sigmoid", 4 * A),
}  # fmt: skip


@pytest.mark.parametrize("op_type", UNARY)
def test_unary(op_type):
    op_name, x = UNARY[op_type]
    check_against_ort(*model_of(op_type, {"x": x.astype(np.float32)}), op_name)


@pytest.mark.parametrize(
    "op_type, attrs", [("Elu", {"alpha": 0.3}), ("Selu", {"alpha": 1.5, "gamma": 2.0}),
                       ("HardSigmoid", {"alpha": 0.3, "beta": 0.2})],
)  # fmt: skip
def test_activation_attributes(op_type, attrs):
    op_name = UNARY[op_type][0]
    check_against_ort(*model_of(op_type, {"x": 3 * A}, **attrs), op_name)


def test_hard_swish_exports_as_hard_sigmoid_times_x_before_opset_14():
    model, feeds = model_of("HardSwish", {"x": 4 * A})
    exported = export_module(with_opset(import_model(model), 13))
    onnx.checker.check_model(exported)
    assert [n.op_type for n in exported.graph.node] == ["HardSigmoid", "Mul"]
    assert_outputs_close(run_ort(exported, feeds), run_ort(model, feeds))


def test_is_inf_detecting_one_sign_stays_opaque():
    model, _ = model_of("IsInf", {"x": SPECIAL}, detect_negative=0)
    assert "nn.opaque" in [op.name for op in import_model(model).walk()]


MIXED_SIGNS = (
    np.array([[7, -7, 7, -7, 0, 6]], np.int32),
    np.array([3, 3, -3, -3, 5, -4], np.int32),
)


@pytest.mark.parametrize("fmod", [0, 1])
def test_mod_of_integers(fmod):
    a, b = MIXED_SIGNS
    check_against_ort(*model_of("Mod", {"a": a, "b": b}, fmod=fmod), "nn.mod")


def test_truncated_mod_of_floats():
    feeds = {"a": 5 * A, "b": np.array([1.5, -0.75, 2.0, -3.0], np.float32)}
    check_against_ort(*model_of("Mod", feeds, fmod=1), "nn.mod")


def test_floored_mod_of_floats_exports_as_truncated_mod_adjusted():
    """ONNX's Mod takes fmod=0 for integers only."""
    module = one_op_module(
        "nn.mod", "tensor<2x3x4xf32>; tensor<4xf32>", "tensor<2x3x4xf32>"
    )
    b = np.array([1.5, -0.75, 2.0, -3.0], np.float32)
    exported = check_against_numpy(module, [5 * A, b], np.mod(5 * A, b))
    assert "Where" in [n.op_type for n in exported.graph.node]


def test_mish():
    check_against_ort(*model_of("Mish", {"x": 4 * A}), "nn.mish")


def test_mish_exports_as_x_tanh_softplus_before_opset_18():
    model, feeds = model_of("Mish", {"x": 4 * A})
    exported = export_module(with_opset(import_model(model), 17))
    onnx.checker.check_model(exported)
    assert [n.op_type for n in exported.graph.node] == ["Softplus", "Tanh", "Mul"]
    assert_outputs_close(run_ort(exported, feeds), run_ort(model, feeds))


@pytest.mark.parametrize("opset", [13, 18])
@pytest.mark.parametrize("keepdims", [0, 1])
def test_reduce_prod(opset, keepdims):
    x = rand(2, 3, 4)
    if opset < 18:
        model = model_of("ReduceProd", {"x": x}, opset, axes=[0, -1], keepdims=keepdims)
    else:
        axes = {"axes": np.array([0, -1], np.int64)}
        model = model_of("ReduceProd", {"x": x}, opset, axes, keepdims=keepdims)
    check_against_ort(*model, "nn.reduce_prod")


@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize(
    "attrs",
    [{}, {"axis": 1, "keepdims": 0}, {"axis": -1, "select_last_index": 1},
     {"axis": 0, "keepdims": 0, "select_last_index": 1}],
)  # fmt: skip
def test_arg_reduce(op_type, attrs):
    model = model_of(op_type, {"x": TIES}, 13, **attrs)
    check_against_ort(*model, f"nn.{op_type.lower()}")


@pytest.mark.parametrize(
    "attrs", [{}, {"exclusive": 1}, {"reverse": 1}, {"exclusive": 1, "reverse": 1}]
)
@pytest.mark.parametrize("axis, x", [(1, A), (-1, INTS)], ids=["float", "int"])
def test_cumsum(attrs, axis, x):
    model = model_of("CumSum", {"x": x}, consts={"axis": np.array(axis)}, **attrs)
    check_against_ort(*model, "nn.cumsum")


@pytest.mark.parametrize("attrs", [{}, {"exclusive": 1, "reverse": 1}])
def test_cumsum_of_float16_sums_in_float32(attrs):
    # a float16 running sum of ones stalls at 2048; onnxruntime's reaches 3000
    x = np.ones(3000, np.float16)
    model = model_of("CumSum", {"x": x}, consts={"axis": np.array(0)}, **attrs)
    check_against_ort(*model, "nn.cumsum")


def test_cumsum_with_runtime_axis_stays_opaque():
    model, _ = model_of("CumSum", {"x": A, "axis": np.array(1)})
    assert "nn.opaque" in [op.name for op in import_model(model).walk()]


def parse(text: str) -> ModuleOp:
    ctx = Context()
    for dialect in (Builtin, Func, NN):
        ctx.load_dialect(dialect)
    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


def one_op_module(op: str, operands: str, result: str, attrs: str = "") -> ModuleOp:
    """`op` applied to the function's arguments, of types `operands`."""
    types = [t.strip() for t in operands.split(";")]
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    uses = ", ".join(f"%a{i}" for i in range(len(types)))
    return parse(
        f"""
        func.func @main({args}) -> {result} {{
          %0 = {op} {uses} {attrs} : ({", ".join(types)}) -> {result}
          func.return %0 : {result}
        }}
        """
    )


def check_against_numpy(module: ModuleOp, inputs: list[np.ndarray], expected, opset=18):
    """Our interpreter and the exported model (in onnxruntime) against numpy."""
    expected = [np.asarray(expected)]
    assert_outputs_close(run_function(module, inputs), expected)
    exported = export_module(with_opset(module, opset))
    onnx.checker.check_model(exported)
    feeds = {i.name: x for i, x in zip(exported.graph.input, inputs)}
    assert_outputs_close(run_ort(exported, feeds), expected)
    return exported


@pytest.mark.parametrize("opset", [11, 18])
def test_not_equal_exports_as_not_equal(opset):
    module = one_op_module(
        "nn.not_equal", "tensor<2x3xi32>; tensor<3xi32>", "tensor<2x3xi1>"
    )
    y = np.array([1, 3, 7], np.int32)
    exported = check_against_numpy(module, [INTS, y], INTS != y, opset)
    assert [n.op_type for n in exported.graph.node] == ["Equal", "Not"]


@pytest.mark.parametrize("op, fn", [("nn.log1p", np.log1p), ("nn.expm1", np.expm1)])
def test_log1p_expm1_export_decomposed(op, fn):
    x = np.abs(rand(5)) + np.array([1e-3, 0, 0.5, 2, 1e-6], np.float32)
    module = one_op_module(op, "tensor<5xf32>", "tensor<5xf32>")
    check_against_numpy(module, [x], fn(x))
    small = np.array([1e-7], np.float32)  # the op keeps its precision near 0
    small_module = one_op_module(op, "tensor<1xf32>", "tensor<1xf32>")
    [ours] = run_function(small_module, [small])
    np.testing.assert_allclose(ours, fn(small), rtol=1e-6)


def test_is_finite_exports_as_not_nan_or_inf():
    module = one_op_module("nn.is_finite", "tensor<6xf32>", "tensor<6xi1>")
    exported = check_against_numpy(module, [SPECIAL], np.isfinite(SPECIAL))
    assert [n.op_type for n in exported.graph.node][-1] == "Not"


@pytest.mark.parametrize(
    "op, attrs, fn",
    [
        ("nn.reduce_any", "{axes = array<i64: 1>, keepdims = 0 : i64}",
         lambda p: p.any(axis=1)),
        ("nn.reduce_all", "{axes = array<i64: 1>, keepdims = 0 : i64}",
         lambda p: p.all(axis=1)),
        ("nn.reduce_any", "{keepdims = 0 : i64}", lambda p: p.any()),
        ("nn.reduce_all", "", lambda p: p.all(keepdims=True)),
    ],
)  # fmt: skip
@pytest.mark.parametrize("opset", [13, 18])
def test_reduce_any_all(op, attrs, fn, opset):
    result = fn(P)
    result_type = f"tensor<{''.join(f'{d}x' for d in result.shape)}i1>"
    module = one_op_module(op, "tensor<2x3xi1>", result_type, attrs)
    check_against_numpy(module, [P], result, opset)


def test_argmax_i32_output_type_exports_with_a_cast():
    module = one_op_module(
        "nn.argmax", "tensor<3x4xf32>", "tensor<3xi32>",
        "{axis = 1 : i64, keepdims = 0 : i64, output_type = i32}",
    )  # fmt: skip
    exported = check_against_numpy(
        module, [TIES], np.argmax(TIES, axis=1).astype(np.int32)
    )
    # without scan_from_first (TensorFlow's scan): NaN and the lowest finite value -inf first
    assert [n.op_type for n in exported.graph.node] == [
        "Greater",
        "Where",
        "ArgMax",
        "Cast",
    ]
