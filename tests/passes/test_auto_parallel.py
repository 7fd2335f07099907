"""auto-parallel{replicas=N}: Grappler's AutoParallel on training steps. On
Grappler's own example it trains to the variable values Grappler's rewrite
reaches in TensorFlow, and its export has Grappler's nodes; on the conv+BN+ReLU
step it trains as its export does in TensorFlow (stored results of
formats/tensorflow/check_graphdef_roundtrip.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from graph_opt import api
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.export.exporter import export_graph_def
from graph_opt.interpreter.tf_state import Session
from graph_opt.remarks import GraphOptWarning

TRAINING = Path(__file__).parents[1] / "formats" / "tensorflow" / "training"
TOLERANCE = 1e-5


def load(name: str, outputs: list[str]):
    return import_graph_def(
        load_graph_def(str(TRAINING / f"{name}.pbtxt")), outputs=outputs
    )


def step_count(data) -> int:
    return len({k.split("/")[0] for k in data.files if k.startswith("after")})


def test_seed_example_trains_as_grappler_auto_parallel():
    """Each step dequeues two batches, one per replica, and applies half of
    each gradient: Grappler's values, not the original's."""
    expected = np.load(TRAINING / "auto_parallel_grappler.npz")
    original = np.load(TRAINING / "auto_parallel.npz")
    statistics: list = []
    module = api.run(
        load("auto_parallel", ["apply_gradient"]),
        "auto-parallel{replicas=2}",
        statistics=statistics,
    )
    session = Session()
    session.run(load("auto_parallel", ["enqueue"]), [expected["enqueued/batch"]])
    for step in range(step_count(expected)):
        assert session.run(module) == []  # the fetch is now a control group
        np.testing.assert_allclose(
            session.variables["var"], expected[f"after{step}/var"], atol=TOLERANCE
        )
    assert not np.allclose(expected["after0/var"], original["after0/var"])
    (stats,) = statistics
    assert stats.counters["replicas"] == 2
    assert stats.counters["divided-updates"] == 1
    assert stats.counters["shared-ops"] == 3  # var, fifo_queue, constant_b


def test_export_has_grappler_nodes_and_data_inputs():
    """Every node Grappler adds or renames is in the export, with the same data
    inputs (Grappler's AddN of two is an AddV2 here)."""
    grappler = load_graph_def(str(TRAINING / "auto_parallel_grappler.pbtxt"))
    module = api.run(load("auto_parallel", ["apply_gradient"]), "auto-parallel")
    ours = {n.name: n for n in export_graph_def(module).node}
    renamed = [
        n for n in grappler.node
        if n.name.startswith("AutoParallel") or n.name == "apply_gradient"
    ]  # fmt: skip
    assert len(renamed) == 16  # 7 per replica, the control fetch, the fetch
    for node in renamed:
        assert node.name in ours, node.name
        mine = ours[node.name]
        assert {node.op, mine.op} <= {"AddN", "AddV2"} or node.op == mine.op
        data = [i for i in node.input if not i.startswith("^")]
        assert [i for i in mine.input if not i.startswith("^")] == data, node.name
        assert set(node.input) <= set(mine.input), node.name
    fetch = ours["AutoParallel-Control-Fetch"]
    assert list(fetch.input) == [
        "^AutoParallel-Replica-0/apply_gradient",
        "^AutoParallel-Replica-1/apply_gradient",
    ]


def train_and_compare(module, data, feeds_of) -> None:
    """Run each step on `feeds_of(step)`; the variables must be the stored ones."""
    session = Session()
    for step in range(step_count(data)):
        session.run(module, feeds_of(step))
        for key in data.files:
            if key.startswith(f"after{step}/"):
                name = key.split("/", 1)[1]
                np.testing.assert_allclose(
                    session.variables[name], data[key], atol=TOLERANCE, err_msg=name
                )


def test_one_replica_trains_as_the_original():
    """replicas=1 divides each gradient by 1: TensorFlow's stored values."""
    data = np.load(TRAINING / "conv_bn_relu.npz")
    module = api.run(load("conv_bn_relu", ["train"]), "auto-parallel{replicas=1}")

    def feeds(step: int) -> dict:
        return {
            f"AutoParallel-Replica-0/{k}": data[f"step{step}/{k}"] for k in ("x", "y")
        }

    train_and_compare(module, data, feeds)


def test_two_replicas_train_as_their_export_in_tensorflow():
    """Replica r of step k reads batch (k + r) mod 3; TensorFlow trained the
    exported graph on the same feeds (check_graphdef_roundtrip.py)."""
    data = np.load(TRAINING / "conv_bn_relu_auto_parallel.npz")
    module = api.run(load("conv_bn_relu", ["train"]), "auto-parallel{replicas=2}")

    def feeds(step: int) -> dict:
        prefix = f"step{step}/"
        return {k[len(prefix) :]: data[k] for k in data.files if k.startswith(prefix)}

    train_and_compare(module, data, feeds)


def test_negative_inference_graph_without_a_batch_is_left_with_a_warning():
    """An inference graph is batch-split (test_auto_parallel_batch.py), but a
    scalar argument has no batch to split."""
    module = api.parse(
        """
        func.func @main(%x: tensor<f32>) -> tensor<f32> {
          %0 = nn.relu %x : (tensor<f32>) -> tensor<f32>
          func.return %0 : tensor<f32>
        }
        """
    )
    before = api.to_mlir(module)
    with pytest.warns(GraphOptWarning, match="an argument has no static dim 0"):
        api.run(module, "auto-parallel")
    assert api.to_mlir(module) == before


def test_zero_replicas_is_refused_in_one_line():
    run = subprocess.run(
        [sys.executable, "-m", "graph_opt", str(TRAINING / "auto_parallel.pbtxt"),
         "--outputs", "apply_gradient", "-p", "auto-parallel{replicas=0}"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 1
    assert run.stderr.strip().count("\n") == 0
    assert "replicas must be >= 1, got 0" in run.stderr
