"""quantize{training=true}: create_training_graph on the conv+BN+ReLU training
fixture. The interpreter's training steps of the rewritten graph reach the
variable values of TensorFlow's hand-written create_training_graph reference,
and graph-opt's GraphDef export of it trained in TensorFlow reached them too
(training/make_qat_graphs.py, stored results)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.nn.names import location_names
from graph_opt.dialects.nn.quant_training import FakeQuantVarsGradOp, FakeQuantVarsOp
from graph_opt.dialects.tf_state import ReadOp
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter.tf_state import Session
from graph_opt.passes.quantize.quantize import QuantizePass

TRAINING = Path(__file__).parents[1] / "formats" / "tensorflow" / "training"
TOLERANCE = 1e-5
QUANT_DELAY, EMA_DECAY = 2, 0.9


def rewritten(**options):
    module = import_graph_def(
        load_graph_def(str(TRAINING / "conv_bn_relu.pbtxt")), outputs=["train"]
    )
    QuantizePass(training=True, **options).apply(Context(), module)
    module.verify()
    return module


def stored(prefix: str) -> dict[int, dict[str, np.ndarray]]:
    data = np.load(TRAINING / "qat_conv_bn_relu.npz")
    found: dict[int, dict[str, np.ndarray]] = {}
    for key in data.files:
        head, name = key.split("/", 1)
        if head.startswith(f"{prefix}after"):
            found.setdefault(int(head.removeprefix(f"{prefix}after")), {})[name] = data[
                key
            ]
    return found


def batches() -> list[dict[str, np.ndarray]]:
    data = np.load(TRAINING / "conv_bn_relu.npz")
    return [{k: data[f"step{s}/{k}"] for k in ("x", "y")} for s in range(3)]


def test_training_steps_reach_tensorflow_reference_values():
    module = rewritten(quant_delay=QUANT_DELAY, ema_decay=EMA_DECAY)
    expected = stored("")
    session = Session()
    for step, feed in enumerate(batches()):
        session.run(module, feed)
        assert set(expected[step]) == set(session.variables)
        for name, value in expected[step].items():
            np.testing.assert_allclose(
                session.variables[name], value, atol=TOLERANCE, err_msg=name
            )


def test_quantization_changes_training_after_the_delay():
    """The reference is not the float training: equal before quant_delay,
    different after (the stored float run of make_training_graphs.py)."""
    float_run = np.load(TRAINING / "conv_bn_relu.npz")
    quantized = stored("")
    assert np.array_equal(quantized[0]["conv1/w"], float_run["after0/conv1/w"])
    assert np.abs(quantized[2]["conv1/w"] - float_run["after2/conv1/w"]).max() > 1e-3


def test_export_trained_in_tensorflow_reaches_the_reference():
    reference, exported = stored(""), stored("export_")
    assert reference.keys() == exported.keys()
    for step, values in reference.items():
        assert values.keys() == exported[step].keys()
        for name, value in values.items():
            np.testing.assert_allclose(exported[step][name], value, atol=TOLERANCE)


def _source(value) -> tuple[str, bool]:
    owner = value.owner
    if isinstance(owner, ReadOp):
        return owner.variable.owner.var_name.data, True
    return location_names(owner)[0], False


def test_fake_quant_placement_is_the_references():
    module = rewritten()
    quants = [op for op in module.walk() if isinstance(op, FakeQuantVarsOp)]
    found = sorted([_source(q.input)[0], q.is_narrow] for q in quants)
    expected = json.loads((TRAINING / "qat_conv_bn_relu_placement.json").read_text())
    assert found == expected
    grads = [op for op in module.walk() if isinstance(op, FakeQuantVarsGradOp)]
    assert len(grads) == len(quants)


def test_without_delay_no_step_counter():
    module = rewritten()
    names = {location_names(op)[0] for op in module.walk() if location_names(op)}
    assert "fake_quantization_step" not in names
    assert any(n.endswith("/delayed_quant") for n in names) is False


@pytest.mark.parametrize(
    "options", [{"per_channel": True}, {"quant_delay": -1}, {"ema_decay": 1.0}]
)
def test_refused_options(options):
    with pytest.raises(PassFailedException):
        rewritten(**options)


def test_export_has_create_training_graphs_nodes(tmp_path):
    """The GraphDef make_qat_graphs.py trained in TensorFlow: FakeQuant nodes
    on the assigned ranges, their gradients, the step counter."""
    from graph_opt import api
    from graph_opt.formats.tensorflow.schema import GraphDef

    api.save(rewritten(quant_delay=QUANT_DELAY), tmp_path / "qat.pb")
    graph = GraphDef()
    graph.ParseFromString((tmp_path / "qat.pb").read_bytes())
    nodes = {node.name: node for node in graph.node}
    kinds = [node.op for node in graph.node]
    assert kinds.count("FakeQuantWithMinMaxVars") == 6
    assert kinds.count("FakeQuantWithMinMaxVarsGradient") == 6
    quant = nodes["conv1/weights_quant"]
    assert quant.attr["narrow_range"].b
    # the bounds read the range variables after their assignment
    assert list(quant.input[1:]) == [
        "conv1/weights_quant/AssignMinLast/read",
        "conv1/weights_quant/AssignMaxLast/read",
    ]
    assert nodes["conv1/weights_quant/AssignMinLast"].op == "AssignVariableOp"
    assert nodes["fake_quantization_step"].op == "VarHandleOp"


def test_export_imports_again_and_trains_to_the_reference(tmp_path):
    """A quantization-aware training graph as TensorFlow holds it: the
    FakeQuantWithMinMaxVars on range variables and their gradients import as
    nn.fake_quant_vars(_grad), and the re-imported graph trains to TF's values."""
    from graph_opt import api

    api.save(rewritten(quant_delay=QUANT_DELAY, ema_decay=EMA_DECAY), tmp_path / "q.pb")
    module = import_graph_def(load_graph_def(str(tmp_path / "q.pb")), outputs=["train"])
    kinds = [type(op) for op in module.walk()]
    assert kinds.count(FakeQuantVarsOp) == 6 and kinds.count(FakeQuantVarsGradOp) == 6
    expected = stored("")
    session = Session()
    for step, feed in enumerate(batches()):
        session.run(module, feed)
        for name, value in expected[step].items():
            np.testing.assert_allclose(
                session.variables[name], value, atol=TOLERANCE, err_msg=name
            )
