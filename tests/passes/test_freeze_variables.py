"""freeze-variables: after quantization-aware training (quantize{training=true}
on the dense + Adam fixture, trained in the interpreter), the eval graph with
the trained variables goes through the inference pipeline to int8."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.utils.exceptions import PassFailedException

from graph_opt import api
from graph_opt.dialects.nn.qint import QMatMulOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.tf_state import ReadOp, VariableOp
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter import run_function
from graph_opt.interpreter.tf_state import Session

TRAINING = Path(__file__).parents[1] / "formats" / "tensorflow" / "training"
FIXTURE = str(TRAINING / "dense_adam.pbtxt")


def batches() -> list[dict[str, np.ndarray]]:
    data = np.load(TRAINING / "dense_adam.npz")
    return [{k: data[f"step{s}/{k}"] for k in ("x", "y")} for s in range(3)]


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """The variables after three QAT steps (quant-delay 1) in the interpreter."""
    module = import_graph_def(load_graph_def(FIXTURE), outputs=["train"])
    api.run(module, "quantize{training=true quant-delay=1}")
    session = Session()
    for feed in batches():
        session.run(module, feed)
    path = tmp_path_factory.mktemp("qat") / "variables.npz"
    np.savez(path, **session.variables)
    return path


def eval_graph(values: Path):
    module = import_graph_def(load_graph_def(FIXTURE), outputs=["Relu"])
    return api.run(
        module,
        f'quantize{{training=true quant-delay=1}},freeze-variables{{values="{values}"}},prune',
    )


def test_eval_graph_reads_the_trained_ranges(trained):
    module = eval_graph(trained)
    values = np.load(trained)
    assert not [op for op in module.walk() if isinstance(op, ReadOp | VariableOp)]
    quants = {
        op.output.name_hint: op for op in module.walk() if isinstance(op, FakeQuantOp)
    }
    assert set(quants) == {"MatMul_weights_quant", "Relu_act_quant"}
    for name, scope in (("MatMul_weights_quant", "MatMul/weights_quant"),
                        ("Relu_act_quant", "Relu/act_quant")):  # fmt: skip
        assert quants[name].mins[0] == values[f"{scope}/min"]
        assert quants[name].maxs[0] == values[f"{scope}/max"]
    assert quants["MatMul_weights_quant"].is_narrow


def test_eval_graph_goes_to_int8(trained, tmp_path):
    module = eval_graph(trained)
    samples = np.stack([feed["x"] for feed in batches()])
    np.savez(tmp_path / "samples.npz", x=samples)
    expected = [run_function(module, [x])[0] for x in samples]
    output = next(
        o for o in module.walk() if isinstance(o, FakeQuantOp) and not o.is_narrow
    )
    step = (output.maxs[0] - output.mins[0]) / 255  # one output quantization step
    api.run(
        module,
        f'fuse-ops,calibrate{{inputs="{tmp_path / "samples.npz"}"}},quantize,convert-to-int',
    )
    assert [op for op in module.walk() if isinstance(op, QMatMulOp)]
    for x, want in zip(samples, expected):
        got = run_function(module, [x])[0]
        assert np.max(np.abs(got - want)) <= 1.01 * step


def test_missing_variables_are_named(tmp_path):
    np.savez(tmp_path / "partial.npz", w=np.zeros((3, 2), np.float32))
    module = import_graph_def(load_graph_def(FIXTURE), outputs=["Relu"])
    with pytest.raises(PassFailedException, match="lacks variable"):
        api.run(module, f'freeze-variables{{values="{tmp_path / "partial.npz"}"}}')


def test_values_are_required():
    module = import_graph_def(load_graph_def(FIXTURE), outputs=["Relu"])
    with pytest.raises(PassFailedException, match="needs values"):
        api.run(module, "freeze-variables")
