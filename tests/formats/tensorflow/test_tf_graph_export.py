"""GraphDef export (`-t graphdef`, `-o x.pb` / `x.pbtxt`): training graphs keep
TensorFlow's op names and attributes and train as TensorFlow did after a
re-import; ops without a TensorFlow form are named in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format
from test_tf_training import TOLERANCE, feeds, steps, train_in_interpreter

from graph_opt import api
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.export.exporter import export_graph_def
from graph_opt.formats.tensorflow.schema import GraphDef
from graph_opt.interpreter.tf_state import Session

HERE = Path(__file__).parent


def export_training(name: str, outputs: list[str]) -> GraphDef:
    module = import_graph_def(
        load_graph_def(str(HERE / "training" / f"{name}.pbtxt")), outputs=outputs
    )
    return export_graph_def(module)


def nodes_by_op(graph: GraphDef) -> dict[str, list]:
    found: dict[str, list] = {}
    for node in graph.node:
        found.setdefault(node.op, []).append(node)
    return found


def test_auto_parallel_export_keeps_tensorflow_names_and_attributes():
    graph = export_training("auto_parallel", ["enqueue", "apply_gradient"])
    by_op = nodes_by_op(graph)
    (var,) = by_op["VariableV2"]
    assert var.name == "var" and list(var.attr["shape"].shape.dim)[0].size == 1
    (apply,) = by_op["ApplyGradientDescent"]
    assert list(apply.input) == ["var", "learning_rate", "add"]
    assert apply.attr["T"].type == 1  # DT_FLOAT
    (dequeue,) = by_op["QueueDequeueManyV2"]
    assert list(dequeue.input) == ["fifo_queue", "constant_b"]
    (init,) = by_op["NoOp"]
    assert init.name == "init" and list(init.input) == ["^var/Assign"]


def test_conv_bn_relu_export_has_training_ops_with_their_attributes():
    graph = export_training("conv_bn_relu", ["train"])
    by_op = nodes_by_op(graph)
    (bn,) = by_op["FusedBatchNormV3"]
    assert bn.attr["is_training"].b and bn.attr["data_format"].s == b"NHWC"
    conv = next(n for n in by_op["Conv2D"] if n.name == "conv2")
    assert list(conv.attr["strides"].list.i) == [1, 2, 2, 1]
    assert conv.attr["padding"].s == b"VALID"
    assert len(by_op["ResourceApplyMomentum"]) == 6
    assert {
        "Conv2DBackpropFilter",
        "FusedBatchNormGradV3",
        "ReluGrad",
        "VarHandleOp",
    } <= set(by_op)
    (train,) = [n for n in by_op["NoOp"] if n.name == "train"]
    assert "^update_mean" in train.input


@pytest.mark.parametrize("name", ["conv_bn_relu", "dense_adam"])
def test_exported_training_graph_trains_as_tensorflow_in_the_interpreter(name: str):
    graph = export_training(name, ["train"])
    module = import_graph_def(graph, outputs=["train"])
    train_in_interpreter(module, np.load(HERE / "training" / f"{name}.npz"))


def test_exported_queue_graph_trains_in_the_interpreter():
    graph = export_training("auto_parallel", ["enqueue", "apply_gradient"])
    data = np.load(HERE / "training" / "auto_parallel.npz")
    session = Session()
    session.run(import_graph_def(graph, outputs=["enqueue"]), [data["enqueued/batch"]])
    train = import_graph_def(graph, outputs=["apply_gradient"])
    for step in range(steps(data)):
        session.run(train)
        np.testing.assert_allclose(
            session.variables["var"], feeds(data, f"after{step}")["var"], atol=TOLERANCE
        )


def test_ops_without_a_tensorflow_form_are_named_in_one_line():
    module = api.parse(
        """
        func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
          %0 = nn.gelu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
          %1 = nn.gelu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
          func.return %1 : tensor<2x3xf32>
        }
        """
    )
    with pytest.raises(
        FrontendError, match=r"^ops without a TensorFlow GraphDef form: nn.gelu \(2\)$"
    ):
        export_graph_def(module)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "graph_opt", *args], capture_output=True, text=True
    )


def test_output_suffix_selects_binary_or_text(tmp_path: Path):
    source = str(HERE / "training" / "dense_adam.pbtxt")
    for suffix in (".pb", ".pbtxt"):
        target = tmp_path / f"out{suffix}"
        run = run_cli(source, "--outputs", "train", "-o", str(target))
        assert run.returncode == 0, run.stderr
        graph = load_graph_def(str(target))
        assert "ApplyAdam" in {n.op for n in graph.node}
    printed = run_cli(source, "--outputs", "train", "-t", "graphdef")
    assert printed.returncode == 0
    text_format.Parse(printed.stdout, GraphDef())


def test_cli_export_failure_is_one_line_and_leaves_no_file(tmp_path: Path):
    """An op without a TensorFlow form inside a loop is named."""
    source, target = tmp_path / "loop.mlir", tmp_path / "loop.pb"
    source.write_text(LOOP_WITH_GELU)
    run = run_cli(str(source), "-o", str(target))
    assert run.returncode == 1 and not target.exists()
    assert run.stderr.count("\n") == 1
    assert "ops without a TensorFlow GraphDef form: nn.gelu (1)" in run.stderr


LOOP_WITH_GELU = """
func.func @main(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  %y = scf.while (%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    %c = tensor.extract %p[] : tensor<i1>
    scf.condition(%c) %a : tensor<2xf32>
  } do {
  ^bb0(%a: tensor<2xf32>):
    %g = nn.gelu %a : (tensor<2xf32>) -> tensor<2xf32>
    scf.yield %g : tensor<2xf32>
  }
  func.return %y : tensor<2xf32>
}
"""
