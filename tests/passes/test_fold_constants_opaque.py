"""fold-constants evaluates every deterministic ONNX operator kept as nn.opaque
whose inputs are constants, with the same values as before, and names the
opaque ops on constants it leaves (random, subgraph, sequence results)."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt.api import parse, run
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.remarks import GraphOptWarning

RNG = np.random.default_rng(3)
W = RNG.standard_normal((1, 4, 2, 2)).astype(np.float32)


def model_on_constant(op_type: str, **attrs):
    """y = x + op_type(w) for a constant w."""
    nodes = [
        helper.make_node(op_type, ["w"], ["f"], **attrs),
        helper.make_node("Add", ["x", "f"], ["y"]),
    ]
    value = helper.make_tensor_value_info
    graph = helper.make_graph(
        nodes,
        "g",
        [value("x", TensorProto.FLOAT, W.shape)],
        [value("y", TensorProto.FLOAT, W.shape)],
        [numpy_helper.from_array(W, "w")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def opaque_types(module) -> list[str]:
    return [op.op_type.data for op in module.walk() if isinstance(op, OpaqueOp)]


@pytest.mark.parametrize(
    "op_type, attrs",
    [
        ("LRN", {"size": 3, "alpha": 0.5, "beta": 0.75, "bias": 2.0}),
        ("LpNormalization", {"axis": 1, "p": 1}),
        ("MeanVarianceNormalization", {}),
        ("Hardmax", {"axis": 1}),
    ],
)
def test_deterministic_opaque_op_folds_to_the_same_values(op_type, attrs):
    module = import_model(model_on_constant(op_type, **attrs))
    assert op_type in opaque_types(module)
    x = RNG.standard_normal(W.shape).astype(np.float32)
    (before,) = run_function(module, [x])
    run(module, "fold-constants")
    assert op_type not in opaque_types(module)
    (after,) = run_function(module, [x])
    np.testing.assert_array_equal(after, before)


def test_random_op_is_left_and_reported():
    module = import_model(model_on_constant("RandomNormalLike"))
    statistics = []
    with pytest.warns(GraphOptWarning, match="RandomNormalLike: random outputs"):
        run(module, "fold-constants", statistics=statistics)
    assert "RandomNormalLike" in opaque_types(module)
    (stats,) = statistics
    assert stats.counters["opaque ops left on constants"] == 1
    assert "opaque ops left on constants" not in stats.undeclared


@pytest.mark.parametrize(
    "op, reason",
    [
        (
            'nn.opaque %a {op_type = "SplitToSequence"} : (tensor<2xf32>) '
            "-> !nn.sequence<tensor<*xf32>>",
            "SplitToSequence: a result that is not a tensor",
        ),
        (
            'nn.opaque %a {op_type = "Floor", domain = "com.example"} : '
            "(tensor<2xf32>) -> tensor<2xf32>",
            "Floor: an operator of domain 'com.example'",
        ),
        (
            'nn.opaque %a {op_type = "Cast", attrs = {to = 8 : i64}} : '
            "(tensor<2xf32>) -> tensor<2x!nn.string>",
            "Cast: a result no constant holds",
        ),
    ],
)
def test_opaque_op_left_on_constants_is_named_with_the_reason(op, reason):
    result_type = op.rsplit("-> ", 1)[1]
    module = parse(
        f"func.func @f() -> {result_type} {{\n"
        "  %a = nn.constant dense<[3.0, 4.0]> : tensor<2xf32>\n"
        f"  %0 = {op}\n"
        f"  func.return %0 : {result_type}\n}}"
    )
    statistics = []
    with pytest.warns(GraphOptWarning, match=reason):
        run(module, "fold-constants", statistics=statistics)
    assert statistics[0].counters["opaque ops left on constants"] == 1
