"""prune: the function computes the same results, names and side effects stay."""

from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper

from graph_opt import api
from graph_opt.dialects.nn.elementwise import IdentityOp, StopGradientOp
from graph_opt.dialects.nn.names import result_names
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.tensor_ops import DropoutOp
from graph_opt.entry import entry_function
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.passes import get_all_passes

GRAPH = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32> {nn.name = "out"}, tensor<3xf32> {nn.name = "y_copy"}) {
  %0 = nn.identity %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.add %0, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = nn.stop_gradient %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.dropout %2 {ratio = 0.5 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.tanh %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %dead = nn.exp %4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %dead_opaque = nn.opaque %dead {op_type = "Floor"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %kept = nn.opaque %y {op_type = "RandomUniformLike"} : (tensor<3xf32>) -> tensor<3xf32>
  %5 = nn.identity %y : (tensor<3xf32>) -> tensor<3xf32>
  func.return %4, %5 : tensor<2x3xf32>, tensor<3xf32>
}
"""


def op_types(module) -> list[type]:
    return [type(op) for op in entry_function(module).body.ops]


def test_prune_keeps_results_and_names():
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in ((2, 3), (3,))]
    module = api.parse(GRAPH)
    expected = run_function(module, inputs)

    api.run(module, "prune")

    for got, want in zip(run_function(module, inputs), expected):
        np.testing.assert_array_equal(got, want)
    remaining = op_types(module)
    assert not {IdentityOp, StopGradientOp, DropoutOp} & set(remaining)
    assert len(remaining) == 4  # add, tanh, the random opaque op, return
    assert [
        op.op_type.data
        for op in entry_function(module).body.ops
        if isinstance(op, OpaqueOp)
    ] == ["RandomUniformLike"]
    assert result_names(entry_function(module)) == ["out", "y_copy"]


def test_prune_registered_by_name():
    assert get_all_passes()["prune"]().name == "prune"


def test_pruned_onnx_model_matches_onnxruntime():
    """Identity and inference Dropout feeding outputs: names survive export."""
    nodes = [
        helper.make_node("Identity", ["x"], ["x_id"]),
        helper.make_node("Relu", ["x_id"], ["r"]),
        helper.make_node("Dropout", ["r"], ["d"]),
        helper.make_node("Identity", ["d"], ["out"]),
        helper.make_node("Exp", ["x"], ["unused"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 4])],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8
    )
    x = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)
    session = onnxruntime.InferenceSession(model.SerializeToString())
    (expected,) = session.run(None, {"x": x})

    module = api.run(import_model(model), "prune")
    exported = export_module(module)
    onnx.checker.check_model(exported)

    assert [n.op_type for n in exported.graph.node] == ["Relu"]
    assert [o.name for o in exported.graph.output] == ["out"]
    session = onnxruntime.InferenceSession(exported.SerializeToString())
    np.testing.assert_array_equal(session.run(None, {"x": x})[0], expected)


LOOPS = Path(__file__).parents[1] / "filecheck" / "passes" / "prune.mlir"


@pytest.mark.parametrize(
    "case", ["dead_write_only_loop_value", "write_only_function_of_loop_value"]
)
@pytest.mark.parametrize("trips", [0, 1, 3])
def test_loop_without_write_only_values_computes_the_same(case, trips):
    """prune's loop rewrite, run for zero, one and several iterations."""
    (text,) = [
        t for t in LOOPS.read_text().split("// -----") if f"func.func @{case}(" in t
    ]
    module = api.parse(text)
    rng = np.random.default_rng(trips)
    (function,) = module.ops
    x = rng.standard_normal(function.args[0].type.get_shape()).astype(np.float32)
    inputs = [x, np.array(trips, np.int32)]
    before = run_function(module, inputs)
    loop_values = len(next(o for o in module.walk() if o.name == "scf.while").results)
    api.run(module, "prune")
    loop = next(o for o in module.walk() if o.name == "scf.while")
    assert len(loop.results) == loop_values - 1
    for got, want in zip(run_function(module, inputs), before, strict=True):
        np.testing.assert_array_equal(got, want)
