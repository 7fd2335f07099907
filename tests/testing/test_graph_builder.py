"""graph_builder: seeded, verified modules; one result or all; run_op evaluates one op."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType, f32, i64

from graph_opt.dialects.nn.base import f32_attr, i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import AddOp, ReluOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.tensor_ops import SplitOp
from graph_opt.interpreter import run_function
from graph_opt.testing.graph_builder import (
    FakeQuantBuilder,
    ModuleBuilder,
    props,
    run_op,
)


def conv_relu(seed: int):
    g = ModuleBuilder((1, 3, 6, 6), seed=seed)
    module = g.module(g.op(ReluOp, g.batch_norm(g.conv(g.x, 3, 4), 4)))
    return module, g.inputs()


def test_same_seed_same_graph_and_inputs():
    (a, x), (b, y) = conv_relu(0), conv_relu(0)
    assert a.is_structurally_equivalent(b)
    np.testing.assert_array_equal(x[0], y[0])
    c, _ = conv_relu(1)
    assert not a.is_structurally_equivalent(c)


def test_module_returns_results_with_inferred_types():
    module, inputs = conv_relu(0)
    (out,) = run_function(module, inputs)
    assert out.shape == (1, 4, 6, 6) and out.dtype == np.float32
    assert (out >= 0).all()


def test_constants_are_float32_unless_told():
    g = ModuleBuilder((2,))
    assert g.const([1, 2]).type == TensorType(f32, [2])
    assert g.const_i64([1, 2]).type == TensorType(i64, [2])
    assert g.random(3, 1).type == TensorType(f32, [3, 1])
    assert all(isinstance(v.owner, ConstantOp) for v in (g.const(1.0), g.random()))


def test_conv_filter_follows_the_layout():
    g = ModuleBuilder((1, 5, 5, 2))
    y = g.conv(g.x, 2, 3, k=3, layout="NHWC")
    assert y.type == TensorType(f32, [1, 5, 5, 3])
    assert y.owner.operands[1].type == TensorType(f32, [3, 3, 2, 3])
    assert isinstance(y.owner, ConvOp)


def test_op_gives_all_results_when_more_than_one():
    g = ModuleBuilder((2, 6))
    left, right = g.op(SplitOp, g.x, axis=i64_attr(1), split=i64_array([2, 4]))
    assert left.type == TensorType(f32, [2, 2]) and right.type == TensorType(
        f32, [2, 4]
    )


def test_props_converts_python_values():
    assert props(group=2, alpha=0.5, mode="edge", pads=(1, 0)) == {
        "group": i64_attr(2),
        "alpha": f32_attr(0.5),
        "mode": str_attr("edge"),
        "pads": i64_array([1, 0]),
    }
    with pytest.raises(KeyError):
        props(axes=[1, 2])  # arrays are tuples; a list is refused


def test_fake_quant_builder_records_the_output_step():
    g = FakeQuantBuilder((1, 4), seed=3)
    y = g.act(g.x, -1.0, 1.0)
    assert isinstance(y.owner, FakeQuantOp) and 0.0 < g.output_scale < 0.01
    w = g.weights((4, 2), axis=1)
    assert w.type == TensorType(f32, [4, 2])
    sets = g.input_sets(2)
    assert len(sets) == 2 and sets[0][0].shape == (1, 4)


def test_run_op_evaluates_one_op():
    a = np.array([1.0, -2.0], np.float32)
    np.testing.assert_array_equal(run_op(AddOp, [a, a]), a + a)
    np.testing.assert_array_equal(run_op(ReluOp, [a]), [1.0, 0.0])
