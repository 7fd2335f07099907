"""quantize{training=true freeze-bn-delay=N}: batch norms folded in training
mode on the forward conv+BN+ReLU fixture, against create_training_graph's
reference with TF 1.15's fold_batch_norms written in TensorFlow
(training/make_qat_fold_graphs.py, stored results): the rewrite's structure,
the interpreter's forward steps on TensorFlow's variable states, and the
variables TensorFlow reached training graph-opt's export."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.utils.exceptions import PassFailedException

from graph_opt import api
from graph_opt.dialects.nn.compare import SelectOp
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.names import location_names
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.dialects.nn.qint import QConvOp, QMatMulOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.quant_training import FakeQuantVarsOp
from graph_opt.dialects.nn.training import BatchNormTrainingOp
from graph_opt.dialects.tf_state import ReadOp
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter import run_function
from graph_opt.interpreter.tf_state import Session
from graph_opt.passes.quantize.quantize import QuantizePass
from graph_opt.remarks import GraphOptWarning
from graph_opt.statistics import collecting

TRAINING = Path(__file__).parents[1] / "formats" / "tensorflow" / "training"
TOLERANCE = 1e-5
QUANT_DELAY, EMA_DECAY, FREEZE_BN_DELAY, STEPS = 2, 0.9, 4, 5
OPTIONS = {
    "quant_delay": QUANT_DELAY,
    "ema_decay": EMA_DECAY,
    "freeze_bn_delay": FREEZE_BN_DELAY,
}
TRAINABLE = {"conv1/w", "bn/gamma", "bn/beta", "conv2/w", "conv2/b", "dense/w"}
"""What the optimizer TensorFlow added trains; the forward graph updates the rest."""
STORED = np.load(TRAINING / "qat_fold.npz")
REFERENCE = json.loads((TRAINING / "qat_fold_reference.json").read_text())


def forward(**options):
    module = import_graph_def(
        load_graph_def(str(TRAINING / "forward_conv_bn_relu.pbtxt")),
        outputs=["loss", "update"],
    )
    if options:
        QuantizePass(training=True, **options).apply(Context(), module)
        module.verify()
    return module


def state(prefix: str, step: int) -> dict[str, np.ndarray]:
    """The variables of the stored TensorFlow run before `step`."""
    head = f"{prefix}initial/" if step == 0 else f"{prefix}after{step - 1}/"
    return {k.removeprefix(head): STORED[k] for k in STORED.files if k.startswith(head)}


def batch(step: int) -> dict[str, np.ndarray]:
    return {name: STORED[f"step{step}/{name}"] for name in ("x", "y")}


def named(module) -> dict:
    return {location_names(op)[0]: op for op in module.walk() if location_names(op)}


def _source(value) -> str:
    owner = value.owner
    if isinstance(owner, ReadOp):
        return owner.variable.owner.var_name.data
    return location_names(owner)[0]


def test_fake_quant_placement_is_the_references():
    """Weights quantized after folding (mul_fold), the activation after the
    folded batch norm's ReLU, not the original conv's weight or output."""
    quants = [op for op in forward(**OPTIONS).walk() if isinstance(op, FakeQuantVarsOp)]
    found = sorted([_source(q.input), q.is_narrow] for q in quants)
    assert found == REFERENCE["placement"]


def test_folded_ops_are_the_references():
    ops = named(forward(**OPTIONS))
    for name in REFERENCE["folded_ops"]:
        assert name in ops, name
    conv, folded = ops["conv1"], ops["conv1_Fold"]
    assert isinstance(folded, ConvOp) and folded.operands[0] is conv.operands[0]
    assert _source(folded.operands[1]) == "conv1_Fold/weights_quant/delayed_quant"
    bn = ops["bn"]
    assert isinstance(bn, BatchNormTrainingOp) and not bn.output.uses
    assert bn.attributes["tf.gradient_op_type"].data == "FoldFusedBatchNormGrad"
    assert ops["relu"].operands[0].owner is ops["add_fold"]
    # the moving averages' decays and the corrections switch at freeze_bn_delay
    flag = ops["BatchNorm_Fold/batch_norm_correction/use_moving_average"].results[0]
    switched = {
        location_names(use.operation)[0]
        for use in flag.uses
        if isinstance(use.operation, SelectOp)
    }
    assert {n.rsplit("/", 1)[-1] for n in switched} == {
        "freeze_moving_mean", "freeze_moving_var", "correction_recip",
        "correction_offset",
    }  # fmt: skip


def test_forward_steps_give_tensorflows_values_on_its_variable_states():
    """Each step of graph-opt's export as TensorFlow trained it: the
    interpreter, given the variables before the step, computes its loss and
    the updates of ranges, moving statistics and step counter."""
    module = forward(**OPTIONS)
    for step in range(STEPS):
        session = Session()
        session.variables.update(
            {k: v.copy() for k, v in state("export_", step).items()}
        )
        (loss,) = session.run(module, batch(step))
        np.testing.assert_allclose(loss, STORED[f"export_loss{step}"], atol=TOLERANCE)
        after = state("export_", step + 1)
        assert set(after) == set(session.variables)
        updated = {n: v for n, v in after.items() if n not in TRAINABLE}
        assert len(updated) == 15  # 6 ranges, 2 moving statistics, step counter
        for name, value in updated.items():
            np.testing.assert_allclose(
                session.variables[name], value, atol=TOLERANCE, err_msg=name
            )


def test_export_trained_in_tensorflow_reaches_the_reference():
    keys = [k for k in STORED.files if k.startswith(("initial/", "after", "loss"))]
    assert len(keys) > 10
    for key in keys:
        np.testing.assert_allclose(
            STORED[f"export_{key}"], STORED[key], atol=TOLERANCE, err_msg=key
        )


def test_moving_statistics_freeze_at_the_delay():
    """The stored reference: the moving mean moves until the step counter
    reaches freeze_bn_delay (run FREEZE_BN_DELAY - 1), then stays."""
    means = [STORED[f"after{k}/bn/moving_mean"] for k in range(STEPS)]
    frozen = FREEZE_BN_DELAY - 1
    assert not np.array_equal(means[frozen - 1], means[frozen - 2])
    for k in range(frozen, STEPS):
        assert np.array_equal(means[k], means[frozen - 1])


def test_without_freeze_delay_batch_statistics_throughout():
    ops = named(forward(quant_delay=QUANT_DELAY))
    assert "BatchNorm_Fold/batch_norm_correction/use_moving_average" not in ops
    assert "BatchNorm_Fold/batch_norm_correction/offset_compute" not in ops
    recip = ops["post_conv_mul"].operands[0].owner
    assert location_names(recip) == [
        "BatchNorm_Fold/batch_norm_correction/reciprocal_compute"
    ]


def test_gradients_already_derived_keep_the_batch_norm_and_say_why():
    """The conv+BN+ReLU fixture with its optimizer: not folded, a warning with
    the reason, the statistics; the rest quantized as before."""
    module = import_graph_def(
        load_graph_def(str(TRAINING / "conv_bn_relu.pbtxt")), outputs=["train"]
    )
    with pytest.warns(GraphOptWarning), collecting("quantize", module) as stats:
        QuantizePass(training=True, freeze_bn_delay=2).apply(Context(), module)
    messages = stats.warnings
    assert any(
        "batch norm bn: its gradients are already derived" in m
        and "before the optimizer is added" in m
        for m in messages
    ), messages
    assert stats.counters["batch norms folded"] == 0
    assert stats.counters["batch norms not folded"] == 1
    ops = named(module)
    assert "conv1_Fold" not in ops and "mul_fold" not in ops


@pytest.mark.parametrize(
    "options",
    [
        {"training": True, "freeze_bn_delay": -1},
        {"training": False, "freeze_bn_delay": 2},
    ],
)
def test_refused_freeze_delays(options):
    module = forward()
    with pytest.raises(PassFailedException, match="freeze-bn-delay"):
        QuantizePass(**options).apply(Context(), module)


def test_export_names_the_gradient_tensorflow_uses(tmp_path):
    from graph_opt.formats.tensorflow.schema import GraphDef

    api.save(forward(**OPTIONS), tmp_path / "qat.pb")
    graph = GraphDef()
    graph.ParseFromString((tmp_path / "qat.pb").read_bytes())
    bn = next(node for node in graph.node if node.name == "bn")
    assert bn.attr["_gradient_op_type"].s == b"FoldFusedBatchNormGrad"


def _run(module, variables, feed):
    session = Session()
    session.variables.update({k: v.copy() for k, v in variables.items()})
    return session.run(module, feed), session.variables


def _conv_same(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """3x3 stride-1 SAME NHWC convolution."""
    padded = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    h, w_ = x.shape[1:3]
    return sum(
        np.einsum("nhwc,co->nhwo", padded[:, i : i + h, j : j + w_], w[i, j])
        for i in range(3)
        for j in range(3)
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_folded_graph_computes_the_batch_norm_on_random_inputs(seed):
    """Quantization delayed past the run: with batch statistics the folded
    graph gives the original's loss, ReLU and moving-statistics updates; from
    freeze_bn_delay on its ReLU is the batch norm with the moving statistics,
    which stay."""
    rng = np.random.default_rng(seed)
    feed = {
        "x": rng.standard_normal((2, 6, 6, 3)).astype(np.float32),
        "y": rng.standard_normal((2, 4)).astype(np.float32),
    }
    variables = state("", 0)
    variables["bn/moving_mean"] = rng.standard_normal(5).astype(np.float32) * 0.3
    variables["bn/moving_variance"] = rng.uniform(0.5, 2, 5).astype(np.float32)
    outputs = ["loss", "update", "relu"]

    def module(**options):
        graph = load_graph_def(str(TRAINING / "forward_conv_bn_relu.pbtxt"))
        imported = import_graph_def(graph, outputs=outputs)
        QuantizePass(training=True, quant_delay=100, **options).apply(
            Context(), imported
        )
        return imported

    graph = load_graph_def(str(TRAINING / "forward_conv_bn_relu.pbtxt"))
    (loss, relu), after = _run(
        import_graph_def(graph, outputs=outputs), variables, feed
    )
    (folded_loss, folded_relu), folded_after = _run(module(), variables, feed)
    np.testing.assert_allclose(folded_loss, loss, atol=TOLERANCE)
    np.testing.assert_allclose(folded_relu, relu, atol=TOLERANCE)
    for name in ("bn/moving_mean", "bn/moving_variance"):
        np.testing.assert_allclose(folded_after[name], after[name], atol=TOLERANCE)

    (_, frozen_relu), frozen_after = _run(module(freeze_bn_delay=1), variables, feed)
    conv = _conv_same(feed["x"], variables["conv1/w"])
    gamma = variables["bn/gamma"] + 1.0  # the fixture's scale
    mean, var = variables["bn/moving_mean"], variables["bn/moving_variance"]
    expected = np.maximum(
        gamma * (conv - mean) / np.sqrt(var + 1e-3) + variables["bn/beta"], 0
    )
    np.testing.assert_allclose(frozen_relu, expected, atol=TOLERANCE)
    assert np.abs(frozen_relu - relu).max() > 0.1
    for name in ("bn/moving_mean", "bn/moving_variance"):
        np.testing.assert_array_equal(frozen_after[name], variables[name])


@pytest.fixture
def trained(tmp_path) -> Path:
    """The reference's variables after the last training step."""
    path = tmp_path / "trained.npz"
    np.savez(path, **state("", STEPS))
    return path


def eval_graph(values: Path):
    """The eval graph: its inference-mode batch norm folded as create_eval_graph
    folds it, the fake quantizations on the trained ranges, the folded weights
    constants."""
    graph = load_graph_def(str(TRAINING / "eval_conv_bn_relu.pbtxt"))
    module = import_graph_def(graph, outputs=["dense"])
    return api.run(
        module,
        f'quantize{{training=true}},freeze-variables{{values="{values}"}},fold-constants',
    )


def test_eval_graph_gives_create_eval_graphs_values(trained):
    module = eval_graph(trained)
    ops = named(module)
    assert "conv1_Fold" in ops and "mul_fold" in ops and "post_conv_mul" not in ops
    assert not [op for op in module.walk() if isinstance(op, BatchNormOp | ReadOp)]
    for k in range(3):
        (logits,) = run_function(module, [STORED[f"eval/x{k}"]])
        np.testing.assert_allclose(logits, STORED[f"eval/logits{k}"], atol=TOLERANCE)


def test_eval_graph_goes_to_int8(trained, tmp_path):
    module = eval_graph(trained)
    samples = np.stack([STORED[f"eval/x{k}"] for k in range(3)])
    np.savez(tmp_path / "samples.npz", x=samples)
    expected = [run_function(module, [x])[0] for x in samples]
    output = next(
        o for o in module.walk() if isinstance(o, FakeQuantOp) and not o.is_narrow
        and o.output.name_hint == "dense_act_quant"
    )  # fmt: skip
    step = (output.maxs[0] - output.mins[0]) / 255  # one output quantization step
    api.run(
        module,
        f'fuse-ops,calibrate{{inputs="{tmp_path / "samples.npz"}"}},quantize,convert-to-int',
    )
    assert len([op for op in module.walk() if isinstance(op, QConvOp)]) == 2
    assert [op for op in module.walk() if isinstance(op, QMatMulOp)]
    for x, want in zip(samples, expected):
        got = run_function(module, [x])[0]
        assert np.max(np.abs(got - want)) <= 1.01 * step
