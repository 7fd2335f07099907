"""Training graphs (TF1-style, non-frozen) import with their state: the
interpreter's training steps reach the variable values TensorFlow stored
(training/make_training_graphs.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from make_fixtures import FLOAT, INT32, GraphBuilder, Type
from xdsl.utils.exceptions import InterpretationError

from graph_opt import api
from graph_opt.dialects.nn.training import (
    BatchNormGradOp,
    BatchNormTrainingOp,
    ConvFilterGradOp,
    ReluGradOp,
)
from graph_opt.dialects.tf_state import (
    ApplyAdamOp,
    ApplyGradientDescentOp,
    ApplyMomentumOp,
    AssignSubOp,
    DequeueOp,
    GroupOp,
    ReadOp,
    VariableOp,
)
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter.tf_state import Session
from graph_opt.passes.convert_layout.layout_patterns import LAYOUT_SENSITIVE_OPS

TRAINING = Path(__file__).parent / "training"
TOLERANCE = 1e-5


def load(name: str, outputs: list[str]):
    return import_graph_def(
        load_graph_def(str(TRAINING / f"{name}.pbtxt")), outputs=outputs
    )


def op_types(module) -> list[type]:
    return [type(op) for op in module.walk()]


def feeds(data, prefix: str) -> dict[str, np.ndarray]:
    return {
        key.split("/", 1)[1]: data[key] for key in data if key.startswith(prefix + "/")
    }


def steps(data) -> int:
    return len({key.split("/")[0] for key in data if key.startswith("after")})


def check_variables(session: Session, data, step: int) -> None:
    expected = feeds(data, f"after{step}")
    assert set(expected) <= set(session.variables)
    for name, value in expected.items():
        np.testing.assert_allclose(
            session.variables[name], value, atol=TOLERANCE, err_msg=name
        )


def train_in_interpreter(module, data, session: Session | None = None) -> Session:
    session = session or Session()
    for step in range(steps(data)):
        session.run(module, feeds(data, f"step{step}"))
        check_variables(session, data, step)
    return session


def test_auto_parallel_example_trains_from_its_queue():
    """Grappler's AutoParallel example: enqueue three batches (one run), then
    each step dequeues one and applies gradient descent to `var`."""
    data = np.load(TRAINING / "auto_parallel.npz")
    train = load("auto_parallel", ["apply_gradient"])
    assert {VariableOp, DequeueOp, ApplyGradientDescentOp} <= set(op_types(train))
    session = Session()
    session.run(load("auto_parallel", ["enqueue"]), [data["enqueued/batch"]])
    np.testing.assert_array_equal(session.variables.get("var", []), [])  # no run yet
    for step in range(steps(data)):
        (updated,) = session.run(train)
        check_variables(session, data, step)
        np.testing.assert_allclose(updated, data[f"after{step}/var"], atol=TOLERANCE)


def test_conv_bn_relu_trains_with_momentum_as_tensorflow():
    module = load("conv_bn_relu", ["train"])
    kinds = set(op_types(module))
    assert {BatchNormTrainingOp, BatchNormGradOp, ReluGradOp, ConvFilterGradOp} <= kinds
    assert {ApplyMomentumOp, AssignSubOp, GroupOp} <= kinds
    variables = [op for op in module.walk() if isinstance(op, VariableOp)]
    assert all(op.resource is not None for op in variables)
    session = train_in_interpreter(module, np.load(TRAINING / "conv_bn_relu.npz"))
    assert "bn/moving_mean" in session.variables


def test_convert_layout_moves_the_gradients_and_trains_as_tensorflow():
    """Forward convs, the training batch norm and every gradient kernel
    (conv_filter_grad, conv_transpose for Conv2DBackpropInput, batch_norm_grad)
    run in NCHW; the training steps still reach TensorFlow's values."""
    module = load("conv_bn_relu", ["train"])
    api.run(module, "convert-layout")
    sensitive = [op for op in module.walk() if isinstance(op, LAYOUT_SENSITIVE_OPS)]
    kinds = {type(op) for op in sensitive}
    assert {BatchNormTrainingOp, BatchNormGradOp, ConvFilterGradOp} <= kinds
    assert {op.layout for op in sensitive} == {"NCHW"}
    train_in_interpreter(module, np.load(TRAINING / "conv_bn_relu.npz"))


def test_dense_adam_trains_as_tensorflow():
    module = load("dense_adam", ["train"])
    assert ApplyAdamOp in op_types(module)
    train_in_interpreter(module, np.load(TRAINING / "dense_adam.npz"))


def test_the_training_step_is_a_group_after_the_updates_it_waits_on():
    module = load("dense_adam", ["train"])
    block = module.body.block.first_op.body.block
    ops = list(block.ops)
    group = next(op for op in ops if isinstance(op, GroupOp))
    assert ops.index(group) == len(ops) - 2  # before func.return only
    names = [a.data for a in group.attributes["tf.control_inputs"].data]
    assert names == ["train/Assign", "train/Assign_1", "train/update_b/ApplyAdam", "train/update_w/ApplyAdam"]  # fmt: skip
    updates = [op for op in ops if isinstance(op, ApplyAdamOp)]
    assert all(ops.index(u) < ops.index(group) for u in updates)


@pytest.mark.parametrize("pipeline", ["cse,dce", "optimize"])
def test_passes_keep_the_training_step(pipeline: str):
    """Passes neither drop nor merge state updates: the step still trains."""
    module = api.run(load("dense_adam", ["train"]), pipeline)
    assert op_types(module).count(ApplyAdamOp) == 2
    train_in_interpreter(module, np.load(TRAINING / "dense_adam.npz"))


def ref_variable_graph() -> GraphBuilder:
    g = GraphBuilder()
    g.placeholder("x", [2])
    g.node("v", "VariableV2", [], shape=("shape", [2]), dtype=Type(FLOAT))
    g.node("double", "Mul", ["v", "x"], T=Type(FLOAT))
    g.node("add", "AssignAdd", ["v", "x"], T=Type(FLOAT))
    return g


def test_ops_reading_a_ref_variable_read_its_value():
    module = import_graph_def(ref_variable_graph().graph, outputs=["double"])
    assert ReadOp in op_types(module)


def test_reading_an_uninitialized_variable_is_an_error():
    """No initializer assigns `v` a constant: a session has no value for it."""
    module = import_graph_def(ref_variable_graph().graph, outputs=["double"])
    with pytest.raises(InterpretationError, match="variable 'v' is not initialized"):
        Session().run(module, [np.ones(2, np.float32)])


def test_single_elements_enqueue_and_dequeue_in_order():
    """QueueEnqueueV2 and QueueDequeueV2 (one element each), fetched together:
    the step enqueues x, then dequeues the element enqueued by the step before."""
    g = GraphBuilder()
    g.placeholder("x", [2])
    queue = g.node("queue", "FIFOQueueV2", [], component_types=[Type(FLOAT)])
    queue.attr["shapes"].list.shape.add().dim.add(size=2)
    g.node("enqueue", "QueueEnqueueV2", ["queue", "x"], Tcomponents=[Type(FLOAT)])
    g.node(
        "dequeue",
        "QueueDequeueV2",
        ["queue", "^enqueue"],
        component_types=[Type(FLOAT)],
    )
    module = import_graph_def(g.graph, outputs=["dequeue"])
    session = Session()
    first, second = np.ones(2, np.float32), np.full(2, 2.0, np.float32)
    np.testing.assert_array_equal(session.run(module, [first])[0], first)
    np.testing.assert_array_equal(session.run(module, [second])[0], second)


@pytest.mark.parametrize(
    ("s0", "s1", "r0", "r1"),
    [
        ([2, 3, 4], [4], [], [0, 1]),
        ([2, 1, 4], [3, 1], [1], [0, 2]),
        ([5, 1], [1, 1], [1], [0, 1]),
        ([2, 3], [2, 3], [], []),
    ],
)  # what TensorFlow 2.21 gives
def test_broadcast_gradient_args_are_constants(s0, s1, r0, r1):
    g = GraphBuilder()
    g.const("s0", np.array(s0, np.int32))
    g.const("s1", np.array(s1, np.int32))
    g.node("args", "BroadcastGradientArgs", ["s0", "s1"], T=Type(INT32))
    module = import_graph_def(g.graph, outputs=["args", "args:1"])
    actual = Session().run(module)
    assert [a.tolist() for a in actual] == [r0, r1]
    assert all(a.dtype == np.int32 for a in actual)


def test_mismatched_broadcast_shapes_are_refused_in_one_line():
    g = GraphBuilder()
    g.const("s0", np.array([2, 3], np.int32))
    g.const("s1", np.array([4], np.int32))
    g.node("args", "BroadcastGradientArgs", ["s0", "s1"], T=Type(INT32))
    with pytest.raises(
        FrontendError, match=r"shapes \[2, 3\] and \[4\] do not broadcast"
    ):
        import_graph_def(g.graph, outputs=["args"])


def test_dequeue_from_an_empty_queue_is_an_error():
    train = load("auto_parallel", ["apply_gradient"])
    with pytest.raises(InterpretationError, match="holds 0 elements, 1 dequeued"):
        Session().run(train)


def test_a_variable_of_unknown_shape_is_refused_in_one_line():
    g = GraphBuilder()
    g.node("v", "VariableV2", [], dtype=Type(FLOAT))
    g.node("read", "Identity", ["v"], T=Type(FLOAT))
    with pytest.raises(
        FrontendError, match="node 'v' \\(VariableV2\\): missing attr 'shape'"
    ):
        import_graph_def(g.graph, outputs=["read"])
    with pytest.raises(
        FrontendError, match="node 'v' \\(VariableV2\\): attribute 'shape' is missing"
    ):
        import_graph_def(g.graph, outputs=["read"], validate=False)


def test_graph_opt_run_trains_one_step(tmp_path: Path):
    data = np.load(TRAINING / "dense_adam.npz")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **feeds(data, "step0"))
    run = subprocess.run(
        [sys.executable, "-m", "graph_opt.tools.run_main", str(TRAINING / "dense_adam.pbtxt"),
         "--outputs", "train", "-i", str(inputs), "-o", str(tmp_path / "out.npz"),
         "--variables", str(tmp_path / "vars.npz")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    variables = np.load(tmp_path / "vars.npz")
    np.testing.assert_allclose(variables["w"], data["after0/w"], atol=TOLERANCE)


def test_a_batch_norms_gradient_op_type_survives_import_and_export(tmp_path: Path):
    """contrib/quantize's folded batch norm names the gradient TensorFlow uses
    instead of its own (`_gradient_op_type`): kept through graph-opt."""
    from graph_opt.formats.tensorflow.schema import GraphDef

    graph = load_graph_def(str(TRAINING / "forward_conv_bn_relu.pbtxt"))
    bn = next(node for node in graph.node if node.name == "bn")
    bn.attr["_gradient_op_type"].s = b"FoldFusedBatchNormGrad"
    module = import_graph_def(graph, outputs=["loss", "update"])
    (op,) = [op for op in module.walk() if isinstance(op, BatchNormTrainingOp)]
    assert op.attributes["tf.gradient_op_type"].data == "FoldFusedBatchNormGrad"
    api.save(module, tmp_path / "out.pb")
    exported = GraphDef()
    exported.ParseFromString((tmp_path / "out.pb").read_bytes())
    bn = next(node for node in exported.node if node.name == "bn")
    assert bn.attr["_gradient_op_type"].s == b"FoldFusedBatchNormGrad"
