"""What Grappler keeps: side effects ordered by control edges, devices, and the
outputs a user names."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from make_fixtures import FLOAT, GraphBuilder, Type
from xdsl.utils.exceptions import InterpretationError

from graph_opt import api
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter import run_function
from graph_opt.remarks import GraphOptWarning

FIXTURES = Path(__file__).parent / "fixtures"


def effect_ops(module) -> list[str]:
    return [op.op_type.data for op in module.walk() if isinstance(op, OpaqueOp)]


def effects_module():
    return import_graph_def(load_graph_def(str(FIXTURES / "effects.pbtxt")))


def test_assert_and_print_of_a_frozen_function_are_kept_in_order():
    """tf.debugging.assert_positive (an Assert in a cond) then tf.print, both
    before the output that waits on them through control edges."""
    module = effects_module()
    ops = [op for op in module.walk() if isinstance(op, OpaqueOp)]
    kinds = [op.op_type.data for op in ops]
    assert "Assert" in kinds and kinds.index("Assert") < kinds.index("PrintV2")
    text = api.to_mlir(module)
    assert "scf.if" in text and 'tf.control_inputs = ["PrintV2"' in text


@pytest.mark.parametrize("pass_name", ["prune", "fold-constants", "optimize"])
def test_passes_keep_side_effects_and_outputs(pass_name: str):
    data = np.load(FIXTURES / "effects.npz")
    module = api.run(effects_module(), pass_name)
    assert {"Assert", "PrintV2"} <= set(effect_ops(module))
    np.testing.assert_allclose(run_function(module, [data["x"]])[0], data["out"])


def test_onnx_export_leaves_side_effects_out_with_a_warning():
    data = np.load(FIXTURES / "effects.npz")
    with pytest.warns(GraphOptWarning, match="side effects.*Assert"):
        model = export_module(effects_module())
    onnx.checker.check_model(model)
    session = ort.InferenceSession(model.SerializeToString())
    np.testing.assert_allclose(session.run(None, {"x": data["x"]})[0], data["out"])


def assert_graph() -> GraphBuilder:
    """y = x * 2 after an Assert that x > 0, grouped by a NoOp."""
    g = GraphBuilder()
    g.placeholder("x", [3])
    g.const("zero", np.zeros(3, np.float32))
    g.node("positive", "Greater", ["x", "zero"], T=Type(FLOAT))
    g.const("axis", np.array([0], np.int32))
    g.node("all", "All", ["positive", "axis"], keep_dims=False)
    g.node("check", "Assert", ["all", "x"], summarize=3)
    g.node("group", "NoOp", ["^check"])
    g.const("two", np.array(2.0, np.float32))
    g.node("y", "Mul", ["x", "two", "^group"], T=Type(FLOAT))
    g.node("unused", "Assert", ["all", "x"], summarize=3)
    return g


def test_assert_runs_in_the_interpreter_and_stops_a_failing_run():
    module = import_graph_def(assert_graph().graph, outputs=["y"])
    assert effect_ops(module) == ["Assert"]  # the one nothing waits on is not imported
    x = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(run_function(module, [x])[0], x * 2)
    with pytest.raises(InterpretationError, match="Assert failed"):
        run_function(module, [-x])


def test_control_edges_between_pure_nodes_are_dropped():
    g = GraphBuilder()
    g.placeholder("x", [3])
    g.node("a", "Relu", ["x"], T=Type(FLOAT))
    g.node("group", "NoOp", ["^a"])
    g.node("y", "Exp", ["x", "^group"], T=Type(FLOAT))
    text = api.to_mlir(import_graph_def(g.graph, outputs=["y"]))
    assert "tf.control_inputs" not in text and "nn.relu" not in text


def devices_module(outputs: list[str]):
    return import_graph_def(
        load_graph_def(str(FIXTURES / "devices.pbtxt")), outputs=outputs
    )


def test_devices_are_kept_and_prune_keeps_identities_that_cross_devices():
    module = devices_module(["out"])
    text = api.to_mlir(module)
    assert 'tf.device = "/device:GPU:0"' in text
    pruned = api.to_mlir(api.run(module, "prune"))
    assert "%to_gpu = nn.identity" in pruned  # moves data from CPU to GPU
    assert "same_device" not in pruned  # CPU to CPU: an identity like any other


def test_outputs_a_user_names_keep_their_names_through_prune_and_export(
    tmp_path: Path,
):
    out = tmp_path / "out.onnx"
    result = subprocess.run(
        ["graph-opt", str(FIXTURES / "devices.pbtxt"), "--outputs", "same_device,out",
         "-p", "prune", "-t", "onnx", "-o", str(out)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    model = onnx.load(str(out))
    assert [o.name for o in model.graph.output] == ["same_device", "out"]
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    same, final = ort.InferenceSession(str(out)).run(None, {"x": x})
    np.testing.assert_allclose(same, np.maximum(x, 0))
    np.testing.assert_allclose(final, np.exp(np.maximum(x, 0)), rtol=1e-6)
