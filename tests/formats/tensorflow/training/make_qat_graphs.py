"""Quantization-aware training references (TensorFlow, not run by CI).

    /work/tfenv/bin/python tests/formats/tensorflow/training/make_qat_graphs.py

TensorFlow 2.x has no tf.contrib, so create_training_graph's rewrite of the
conv+BN+ReLU fixture (make_training_graphs.py) is written here by hand from
tensorflow/contrib/quantize (quant_ops.py LastValueQuantize and
MovingAvgQuantize, quantize.py's quant_delay tf.cond, common.py's
fake_quantization_step), before the optimizer derives the gradients:

- each layer weight: `<layer>/weights_quant/min|max` variables assigned the
  weight's min and max (widened to contain 0), a narrow-range
  FakeQuantWithMinMaxVars reading the assigned values;
- each layer output (the inference quantize's rules, batch norms not folded:
  conv1's output, the bias add after conv2, the dense layer's result):
  `<producer>/act_quant/min|max` moving toward the batch's min and max
  (assign_moving_average without zero debiasing, decay EMA_DECAY);
- weight ranges initially [-6, 6], activation ranges (act_quant) [0, 6]; each fake quantization used from step QUANT_DELAY
  on (the step counter incremented once per run, first run 1).

Writes qat_conv_bn_relu.npz: `after<k>/<variable>` of the reference after each
step on conv_bn_relu.npz's batches, `export_after<k>/<variable>` the same for
graph-opt's `quantize{training=true quant-delay=QUANT_DELAY ema-decay=EMA_DECAY}`
of conv_bn_relu.pbtxt exported as a GraphDef and trained by TensorFlow, and
qat_conv_bn_relu_placement.json: what each FakeQuant of the reference reads
(the variable of a weight, the node of an activation) and its narrow_range.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import tensorflow as tf

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from check_graphdef_roundtrip import export, load_graph  # noqa: E402
from make_training_graphs import conv_bn_relu_graph  # noqa: E402

tf1 = tf.compat.v1
QUANT_DELAY = 2
EMA_DECAY = 0.9
PASS = f"quantize{{training=true quant-delay={QUANT_DELAY} ema-decay={EMA_DECAY}}}"


class Quantization:
    """The hooks conv_bn_relu_graph calls, creating create_training_graph's ops."""

    def __init__(self):
        self.active = None
        self.count = None

    def step(self):
        """common.CreateOrGetQuantizationStep: the counter incremented once per
        run (first run 1)."""
        if self.count is None:
            step = tf1.get_variable(
                "fake_quantization_step", initializer=tf.constant(0, tf.int64),
                trainable=False, use_resource=True,
            )  # fmt: skip
            self.count = tf.identity(step.assign_add(1), name="step")
        return self.count

    def _delayed(self, quantized, plain, scope: str):
        if self.active is None:
            self.active = tf.greater_equal(self.step(), np.int64(QUANT_DELAY))
        return tf1.cond(
            self.active, lambda: quantized, lambda: plain, name=f"{scope}/delayed_quant"
        )

    @staticmethod
    def _range_variable(name: str, initial: float):
        return tf1.get_variable(
            name, initializer=tf.constant(initial), trainable=False, use_resource=True
        )

    @staticmethod
    def _batch_range(value):
        return (
            tf.minimum(tf.reduce_min(value), 0.0),
            tf.maximum(tf.reduce_max(value), 0.0),
        )

    def weight(self, variable, layer: str):
        scope = f"{layer}/weights_quant"
        weight = tf.convert_to_tensor(variable)
        low, high = self._batch_range(weight)
        assigned_min = self._range_variable(f"{scope}/min", -6.0).assign(low)
        assigned_max = self._range_variable(f"{scope}/max", 6.0).assign(high)
        quant = tf.quantization.fake_quant_with_min_max_vars(
            weight, assigned_min, assigned_max, num_bits=8, narrow_range=True,
            name=scope,
        )  # fmt: skip
        return self._delayed(quant, weight, scope)

    def activation(self, value, producer: str):
        scope = f"{producer}/act_quant"
        low, high = self._batch_range(value)
        decay = np.float32(1.0 - EMA_DECAY)
        bounds = []
        # act_quant: _InsertQuantOp(..., init_min=0.0) in contrib's quantize.py
        for bound, batch, initial in (("min", low, 0.0), ("max", high, 6.0)):
            variable = self._range_variable(f"{scope}/{bound}", initial)
            bounds.append(variable.assign_sub((variable - batch) * decay))
        quant = tf.quantization.fake_quant_with_min_max_vars(
            value, *bounds, num_bits=8, narrow_range=False, name=scope
        )
        return self._delayed(quant, value, scope)


def placement(graph: tf.Graph) -> list[list]:
    """[what each FakeQuantWithMinMaxVars reads, narrow_range], sorted."""
    found = []
    for op in graph.get_operations():
        if op.type != "FakeQuantWithMinMaxVars":
            continue
        source = op.inputs[0].op
        while source.type in ("Identity", "ReadVariableOp"):
            source = source.inputs[0].op
        found.append([source.name, bool(op.get_attr("narrow_range"))])
    return sorted(found)


def variables_of(graph: tf.Graph) -> dict:
    """Each variable's name and a tensor reading it."""
    handles = [o for o in graph.get_operations() if o.type == "VarHandleOp"]
    with graph.as_default():
        return {
            h.name: tf.raw_ops.ReadVariableOp(resource=h.outputs[0], dtype=h.get_attr("dtype"))
            for h in handles
        }  # fmt: skip


def train(graph: tf.Graph, feeds: list[dict], prefix: str) -> dict:
    reads = variables_of(graph)
    record = {}
    with tf1.Session(graph=graph) as session:
        session.run("init")
        for step, feed in enumerate(feeds):
            session.run("train", {f"{k}:0": v for k, v in feed.items()})
            for name, value in session.run(reads).items():
                record[f"{prefix}after{step}/{name}"] = value
    return record


def report_difference(record: dict, keys: list[str]) -> None:
    """Print how far the export, trained in TensorFlow, ends from the reference."""
    difference = max(
        float(np.max(np.abs(record[k] - record[f"export_{k}"]))) for k in keys
    )
    print(
        f"export trained in TensorFlow vs reference: max |difference| {difference:.3g}"
    )


def main() -> None:
    tf1.disable_eager_execution()
    data = np.load(HERE / "conv_bn_relu.npz")
    steps = len({k.split("/")[0] for k in data.files if k.startswith("step")})
    feeds = [{k: data[f"step{s}/{k}"] for k in ("x", "y")} for s in range(steps)]
    hooks = Quantization()
    reference = conv_bn_relu_graph(hooks.weight, hooks.activation)
    record = train(reference, feeds, "")
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "qat.pb"
        error = export(HERE / "conv_bn_relu.pbtxt", ["train"], target, PASS)
        if error is not None:
            raise SystemExit(f"graph-opt could not export: {error}")
        exported = load_graph(target)
    record.update(train(exported, feeds, "export_"))
    np.savez(HERE / "qat_conv_bn_relu.npz", **record)
    (HERE / "qat_conv_bn_relu_placement.json").write_text(
        json.dumps(placement(reference)) + "\n"
    )
    report_difference(record, [k for k in record if not k.startswith("export_")])


if __name__ == "__main__":
    main()
