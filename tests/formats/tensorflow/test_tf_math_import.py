"""Mappings of comparisons, logical ops, Select, ArgMax/ArgMin and reductions on
graphs built in the tests: inputs the TensorFlow fixtures do not cover
(unknown shapes, default attributes) and what is refused."""

from __future__ import annotations

import numpy as np
import pytest
from make_fixtures import FLOAT, INT32, GraphBuilder, Type
from xdsl.dialects.builtin import IntegerType, UnrankedTensorType

from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import import_graph_def
from graph_opt.interpreter import run_function

RNG = np.random.default_rng(3)


def rand(*shape) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def test_comparison_of_unknown_rank_is_a_bool_of_unknown_rank():
    """x reshaped to a shape given at run time has an unknown rank."""
    g = GraphBuilder()
    g.placeholder("x0", [2, 3])
    g.placeholder("s", [-1], INT32)
    g.node("x", "Reshape", ["x0", "s"], T=Type(FLOAT))
    g.const("zero", np.array(0.0, np.float32))
    g.node("gt", "Greater", ["x", "zero"], T=Type(FLOAT))
    g.node("nan", "IsNan", ["x"], T=Type(FLOAT))
    module = import_graph_def(g.graph, outputs=["gt", "nan"])
    results = [
        op.results[0] for op in module.walk() if op.name in ("nn.greater", "nn.is_nan")
    ]
    assert [r.type for r in results] == [UnrankedTensorType(IntegerType(1))] * 2
    x = rand(2, 3)
    gt, nan = run_function(module, {"x0": x, "s": np.array([3, 2], np.int32)})
    x = x.reshape(3, 2)
    np.testing.assert_array_equal(gt, x > 0)
    assert nan.dtype == np.bool_ and not nan.any()


def select_graph(condition_shape, branch_shape) -> GraphBuilder:
    g = GraphBuilder()
    c = g.placeholder("c", condition_shape)
    c.attr["shape"].shape.SetInParent()  # [] is a known scalar shape
    g.placeholder("x", branch_shape)
    g.const("zero", np.array(0.0, np.float32))
    g.node("cond", "Greater", ["c", "zero"], T=Type(FLOAT))
    g.node("neg", "Neg", ["x"], T=Type(FLOAT))
    g.node("out", "Select", ["cond", "x", "neg"], T=Type(FLOAT))
    return g


@pytest.mark.parametrize(
    "condition_shape, branch_shape",
    [([4], [4, 2, 3]), ([-1], [-1, 3]), ([2, 3], [2, 3]), ([], [2, 3])],
    ids=["vector_picks_rows", "vector_dynamic_batch", "same_shape", "scalar"],
)
def test_select_v1_matches_tensorflow_semantics(condition_shape, branch_shape):
    module = import_graph_def(select_graph(condition_shape, branch_shape).graph)
    batch = 4 if -1 in branch_shape else None
    c = rand(*[batch if d == -1 else d for d in condition_shape])
    x = rand(*[batch if d == -1 else d for d in branch_shape])
    [out] = run_function(module, {"c": c, "x": x})
    mask = (c > 0).reshape(c.shape + (1,) * (x.ndim - c.ndim)) if c.ndim == 1 else c > 0
    np.testing.assert_array_equal(out, np.where(mask, x, -x))


def test_select_v1_condition_of_another_shape_is_an_error():
    with pytest.raises(
        FrontendError, match=r"node 'out' \(Select\): condition of shape"
    ):
        import_graph_def(select_graph([3, 2], [2, 3]).graph)


def test_logical_op_on_floats_is_a_frontend_error():
    g = GraphBuilder()
    g.placeholder("x", [2])
    g.node("out", "LogicalAnd", ["x", "x"])
    with pytest.raises(
        FrontendError, match=r"input 0 is float from 'x', expected bool"
    ):
        import_graph_def(g.graph)
    with pytest.raises(FrontendError, match=r"node 'out' \(LogicalAnd\): expected i1"):
        import_graph_def(g.graph, validate=False)


def arg_graph(op: str, **attrs) -> GraphBuilder:
    g = GraphBuilder()
    g.placeholder("x", [3, 4])
    g.const("dim", np.array(-1, np.int32))
    g.node("out", op, ["x", "dim"], T=Type(FLOAT), Tidx=Type(INT32), **attrs)
    return g


@pytest.mark.parametrize("op, fn", [("ArgMax", np.argmax), ("ArgMin", np.argmin)])
def test_arg_reduction_without_output_type_gives_int64(op, fn):
    module = import_graph_def(arg_graph(op).graph)
    x = rand(3, 4)
    [out] = run_function(module, {"x": x})
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, fn(x, axis=-1))


def test_arg_reduction_with_computed_dimension_is_opaque_when_allowed():
    g = GraphBuilder()
    g.placeholder("x", [3, 4])
    g.placeholder("dim", [], INT32).attr["shape"].shape.SetInParent()
    g.node("out", "ArgMax", ["x", "dim"], T=Type(FLOAT), output_type=Type(INT32))
    with pytest.raises(FrontendError, match="the dimension must be a constant"):
        import_graph_def(g.graph)
    module = import_graph_def(g.graph, allow_opaque=True)
    assert any(isinstance(op, OpaqueOp) for op in module.walk())


@pytest.mark.parametrize("op", ["Prod", "Any", "Max"])
def test_empty_reduction_indices_reduce_nothing(op):
    g = GraphBuilder()
    g.placeholder("x", [2, 3])
    g.const("zero", np.array(0.0, np.float32))
    g.const("axes", np.zeros((0,), np.int32), encoding="typed")
    source = "x"
    if op == "Any":
        g.node("gt", "Greater", ["x", "zero"], T=Type(FLOAT))
        source = "gt"
    g.node("out", op, [source, "axes"], keep_dims=False)
    module = import_graph_def(g.graph, outputs=["out"])
    x = rand(2, 3)
    [out] = run_function(module, {"x": x})
    np.testing.assert_array_equal(out, x > 0 if op == "Any" else x)


def test_where_gives_the_indices_of_true_elements_of_dynamic_count():
    g = GraphBuilder()
    g.placeholder("x", [2, 3, 2])
    g.node("out", "Where", ["x"], T=Type(FLOAT))
    module = import_graph_def(g.graph)
    (result,) = [op for op in module.walk() if op.name == "func.return"][0].operands
    assert str(result.type) == "tensor<?x3xi64>"
    x = rand(2, 3, 2) * (rand(2, 3, 2) > 0)
    [out] = run_function(module, {"x": x})
    np.testing.assert_array_equal(out, np.argwhere(x))


@pytest.mark.parametrize("op", ["ArgMax", "Cumsum"])
def test_axis_of_several_values_is_a_frontend_error(op):
    g = GraphBuilder()
    g.placeholder("x", [3, 4])
    g.const("dim", np.array([0, 1], np.int32))
    g.node("out", op, ["x", "dim"], T=Type(FLOAT))
    with pytest.raises(
        FrontendError, match=rf"node 'out' \({op}\): .* must be one value"
    ):
        import_graph_def(g.graph)
