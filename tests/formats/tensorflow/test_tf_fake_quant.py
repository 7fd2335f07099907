"""FakeQuant GraphDefs: nn.fake_quant in the interpreter gives TensorFlow's own
outputs (fixtures written by make_fake_quant_fixtures.py with real TensorFlow)."""

from __future__ import annotations

import numpy as np
import pytest
from make_fixtures import FIXTURES, GraphBuilder

from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.quant_training import FakeQuantVarsGradOp, FakeQuantVarsOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter import run_function


def load(name: str):
    data = np.load(FIXTURES / f"{name}.npz")
    outputs = [str(n) for n in data["outputs"]]
    graph = load_graph_def(str(FIXTURES / f"{name}.pb"))
    return import_graph_def(graph, outputs=outputs), data, outputs


def fake_quants(module) -> list[FakeQuantOp]:
    return [op for op in module.walk() if isinstance(op, FakeQuantOp)]


def test_fake_quant_nodes_import_as_nn_fake_quant():
    module, _, _ = load("fake_quant")
    quants = fake_quants(module)
    assert sorted(op.bits for op in quants) == [2, 4, 5, 6, 8, 8, 8, 8, 8, 16]
    assert [op.axis_value for op in quants if op.axis is not None] == [3, 3]
    assert sum(op.is_narrow for op in quants) == 2


def test_frozen_variables_are_read_through_identities():
    module, _, _ = load("fake_quant_qat")
    weights, activation = fake_quants(module)
    assert weights.is_narrow and not activation.is_narrow
    assert (activation.mins[0], activation.maxs[0]) == (0.0, 3.5)


@pytest.mark.parametrize("name", ["fake_quant", "fake_quant_qat"])
@pytest.mark.parametrize("input_set", [0, 1])
def test_interpreter_matches_tensorflow(name, input_set):
    module, data, outputs = load(name)
    actual = run_function(module, [data[f"in{input_set}_x"]])
    for i, output in enumerate(outputs):
        expected = data[f"out{input_set}_{i}"]
        if output in ("conv", "out"):
            # the convolution before it may round differently from TF's
            np.testing.assert_allclose(actual[i], expected, atol=1e-6, err_msg=output)
        else:
            np.testing.assert_array_equal(actual[i], expected, err_msg=output)


def test_runtime_range_is_a_fake_quant_vars_computing_the_same():
    """A range the graph computes (quantization-aware training's variables)
    gives nn.fake_quant_vars, which computes what nn.fake_quant does."""
    g = GraphBuilder()
    g.placeholder("x", [2, 3])
    g.placeholder("low", [])
    g.const("high", np.float32(1.0))
    g.node("fq", "FakeQuantWithMinMaxVars", ["x", "low", "high"], num_bits=8)
    module = import_graph_def(g.graph)
    assert [type(op) for op in module.walk()].count(FakeQuantVarsOp) == 1
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    (actual,) = run_function(module, [x, np.float32(-0.5)])
    g.const("low_const", np.float32(-0.5))
    g.nodes["fq"].input[1] = "low_const"
    module = import_graph_def(g.graph, outputs=["fq"])
    assert [type(op) for op in module.walk()].count(FakeQuantOp) == 1
    (expected,) = run_function(module, [x])
    np.testing.assert_array_equal(actual, expected)


def test_bad_ranges_are_errors_and_range_gradients_unsupported():
    g = GraphBuilder()
    g.placeholder("x", [2, 3])
    g.placeholder("low", [1])
    g.const("high", np.float32(1.0))
    g.node("fq", "FakeQuantWithMinMaxVars", ["x", "low", "high"], num_bits=8)
    with pytest.raises(FrontendError, match=r"node 'fq' .*min and max must be scalars"):
        import_graph_def(g.graph)
    g = GraphBuilder()
    g.placeholder("x", [2, 3])
    g.node("fq", "FakeQuantWithMinMaxArgs", ["x"], min=1.0, max=-1.0)
    with pytest.raises(FrontendError, match="min must be smaller than max"):
        import_graph_def(g.graph)
    g = GraphBuilder()
    for name, shape in (("dy", [4]), ("x", [4]), ("low", []), ("high", [])):
        g.placeholder(name, shape)
    g.node("grad", "FakeQuantWithMinMaxVarsGradient", ["dy", "x", "low", "high"])
    module = import_graph_def(g.graph, outputs=["grad"])
    assert [type(op) for op in module.walk()].count(FakeQuantVarsGradOp) == 1
    g.node("min_grad", "Identity", ["grad:1"])
    with pytest.raises(FrontendError, match="gradients for min and max"):
        import_graph_def(g.graph, outputs=["min_grad"])
