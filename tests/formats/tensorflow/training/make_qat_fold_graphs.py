"""Quantization-aware training with batch norms folded in training mode
(TensorFlow, not run by CI).

    /work/tfenv/bin/python tests/formats/tensorflow/training/make_qat_fold_graphs.py

- forward_conv_bn_relu.pbtxt: a forward training graph (tf.compat.v1): conv,
  training-mode FusedBatchNormV3 whose moving statistics `update` (NoOp)
  moves by `moving -= (moving - batch) * decay`, ReLU, conv + bias, mean
  pool, dense, squared-error `loss`; no optimizer yet, as create_training_graph
  wants it.
- The reference: create_training_graph(quant_delay=QUANT_DELAY) with
  freeze_bn_delay FREEZE_BN_DELAY (TF 2 has no contrib) written from
  contrib/quantize's sources of TF 1.15: fold_batch_norms.py
  _FoldFusedBatchNorms and _ComputeBatchNormCorrections (the `BatchNorm_Fold`
  ops below, the batch norm's gradient replaced by _FoldFusedBatchNormGrad),
  then make_qat_graphs.Quantization's fake quantizations on the folded
  weights (`mul_fold`), after the ReLU, after the second conv's bias add and
  after the dense layer.
- graph-opt's `quantize{training=true quant-delay=.. ema-decay=..
  freeze-bn-delay=..}` of the forward graph, exported with `-t graphdef`.

Both GraphDefs are imported the same way, get the same
tf.compat.v1.train.MomentumOptimizer (after `update`), and train STEPS steps
on the same batches (crossing quant_delay and freeze_bn_delay). Writes
qat_fold.npz: `step<k>/x|y` the batches; for the reference (no prefix) and the
export (`export_`): `initial/<variable>`, `after<k>/<variable>` and
`loss<k>` (the loss TensorFlow computed in step k); and
qat_fold_reference.json: what each FakeQuantWithMinMaxVars reads and its
narrow_range, and the folded ops of the reference (op type by name).

eval_conv_bn_relu.pbtxt is the forward graph's eval form (the batch norm in
inference mode on the moving statistics, no updates); `eval/logits<k>` in
qat_fold.npz are what create_eval_graph's rewrite of it (the batch norm folded
in inference mode, FakeQuant reading the range variables) computes on
`eval/x<k>` with the reference's variables after the last step.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import attr_value_pb2, variable_pb2
from tensorflow.python.framework import ops
from tensorflow.python.ops import resource_variable_ops

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from check_graphdef_roundtrip import export, load_graph  # noqa: E402
from make_qat_graphs import (  # noqa: E402
    EMA_DECAY,
    QUANT_DELAY,
    Quantization,
    placement,
    report_difference,
)

tf1 = tf.compat.v1
FREEZE_BN_DELAY = 4
STEPS = 5
BN_DECAY = 0.1
TRAINABLE = ["conv1/w", "bn/gamma", "bn/beta", "conv2/w", "conv2/b", "dense/w"]
PASS = (
    f"quantize{{training=true quant-delay={QUANT_DELAY} ema-decay={EMA_DECAY} "
    f"freeze-bn-delay={FREEZE_BN_DELAY}}}"
)
FOLDED_OPS = [
    "Undo_Bessel_Correction", "BatchNorm_Fold/mul", "BatchNorm_Fold/bias",
    "BatchNorm_Fold/batch_norm_correction/scale_compute",
    "BatchNorm_Fold/batch_norm_correction/offset_compute",
    "correction_mult", "mul_fold", "conv1_Fold", "post_conv_mul", "correction_add",
    "add_fold",
]  # fmt: skip


@ops.RegisterGradient("FoldFusedBatchNormGrad")
def _fold_fused_batch_norm_grad(op, unused_grad_y, grad_mean, grad_var, *unused):
    """fold_batch_norms._FoldFusedBatchNormGrad: the batch norm's input gets
    the gradients of its batch mean and variance."""
    x = op.inputs[0]
    n = tf.cast(tf.size(x) / tf.size(grad_mean), tf.float32)
    dmean_dx = grad_mean / n
    dvar_dx = 2 * grad_var * (x - op.outputs[1]) / (n - 1)
    return (dmean_dx + dvar_dx), None, None, None, None


class BatchNormFolding:
    """_FoldFusedBatchNorms with _ComputeBatchNormCorrections, training mode,
    for a layer at the top name scope (TensorFlow's names)."""

    def __init__(self, quantization: Quantization):
        self.quantization = quantization
        self.use_moving_average = None

    def _frozen(self):
        if self.use_moving_average is None:
            self.use_moving_average = tf.greater_equal(
                self.quantization.step(), np.int64(FREEZE_BN_DELAY),
                name="BatchNorm_Fold/batch_norm_correction/use_moving_average",
            )  # fmt: skip
        return self.use_moving_average

    def decay(self, decay, name: str):
        """The moving average's decay, 0 from freeze_bn_delay on (the reroute of
        bn_decay_mean_tensor's and bn_decay_var_tensor's consumers)."""
        return tf1.cond(
            self._frozen(), lambda: tf.constant(0.0), lambda: decay,
            name=f"BatchNorm_Fold/batch_norm_correction/{name}",
        )  # fmt: skip

    def fold(self, layer_op, bn_op, moving_mean, moving_variance):
        """add_fold, which replaces the batch norm's output (an inference-mode
        batch norm, create_eval_graph's: its mean and variance, no corrections)."""
        x, gamma, beta = layer_op.inputs[0], bn_op.inputs[1], bn_op.inputs[2]
        training, epsilon = bn_op.get_attr("is_training"), bn_op.get_attr("epsilon")
        mean, variance = bn_op.inputs[3], bn_op.inputs[4]
        if training:
            bn_op._set_attr(
                "_gradient_op_type",
                attr_value_pb2.AttrValue(s=b"FoldFusedBatchNormGrad"),
            )
            mean = bn_op.outputs[1]
            n = tf.cast(tf.size(layer_op.outputs[0]) / tf.size(mean), tf.float32)
            variance = tf.multiply(
                bn_op.outputs[2], (n - 1) / n, name="Undo_Bessel_Correction"
            )
        with tf1.name_scope("BatchNorm_Fold/"):
            multiplier = gamma * tf.math.rsqrt(variance + epsilon)
            bias = tf.subtract(beta, mean * multiplier, name="bias")
        weights = layer_op.inputs[1]
        if training:
            scale, recip, offset = self._corrections(
                gamma, mean, variance, moving_mean, moving_variance, epsilon
            )
            weights = tf.multiply(scale, weights, name="correction_mult")
        weights = tf.multiply(weights, multiplier, name="mul_fold")
        weights = self.quantization.weight(weights, "conv1_Fold")  # Quantize
        folded = tf.nn.conv2d(
            x, weights, strides=layer_op.get_attr("strides"),
            padding=layer_op.get_attr("padding"), name="conv1_Fold",
        )  # fmt: skip
        if training:
            folded = tf.multiply(recip, folded, name="post_conv_mul")
            folded = tf.add(folded, offset, name="correction_add")
        return tf.add(folded, bias, name="add_fold")

    def _corrections(
        self, gamma, mean, variance, moving_mean, moving_variance, epsilon
    ):
        """_ComputeBatchNormCorrections: (scale, recip, offset)."""
        with tf1.name_scope("BatchNorm_Fold/"):
            with tf1.name_scope("batch_norm_correction"):
                recip_sigma_mv = tf.math.rsqrt(moving_variance + epsilon)
                recip_sigma = tf.math.rsqrt(variance + epsilon)
                scale = tf.divide(recip_sigma_mv, recip_sigma, name="scale_compute")
                scale = tf.identity(scale, name="correction_scale")
                recip = tf.math.reciprocal(scale, name="reciprocal_compute")
                offset = tf.multiply(
                    gamma, mean * recip_sigma - moving_mean * recip_sigma_mv,
                    name="offset_compute",
                )  # fmt: skip
                frozen = self._frozen()
                recip = tf1.cond(
                    frozen, lambda: tf.ones(scale.shape), lambda: recip,
                    name="correction_recip",
                )  # fmt: skip
                offset = tf1.cond(
                    frozen, lambda: offset, lambda: tf.zeros(offset.shape),
                    name="correction_offset",
                )  # fmt: skip
        return scale, recip, offset


class EvalQuantization:
    """quant_ops' LastValueQuantize and MovingAvgQuantize with
    is_training=False (create_eval_graph): FakeQuant reading the range variables."""

    @staticmethod
    def _quantized(value, scope: str, narrow: bool, init_min: float):
        bounds = [
            Quantization._range_variable(f"{scope}/{bound}", initial)
            for bound, initial in (("min", init_min), ("max", 6.0))
        ]
        return tf.quantization.fake_quant_with_min_max_vars(
            value, *bounds, num_bits=8, narrow_range=narrow, name=scope
        )

    def weight(self, variable, layer: str):
        return self._quantized(
            tf.convert_to_tensor(variable), f"{layer}/weights_quant", True, -6.0
        )

    def activation(self, value, producer: str):
        return self._quantized(value, f"{producer}/act_quant", False, 0.0)


def _unchanged(tensor, name):
    return tensor


def forward_graph(folding: BatchNormFolding | None = None, training: bool = True):
    """The forward fixture; with `folding`, create_training_graph's rewrite.
    Not `training`: the eval graph (the batch norm normalizing by the moving
    statistics, no updates); with `folding`, create_eval_graph's rewrite."""
    quantization = folding.quantization if folding is not None else None
    weight = quantization.weight if quantization is not None else _unchanged
    activation = quantization.activation if quantization is not None else _unchanged
    rng = np.random.default_rng(5)
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [2, 6, 6, 3], name="x")
        y = tf1.placeholder(tf.float32, [2, 4], name="y")

        def variable(name, shape, scale=0.3, trainable=True, initial=None):
            if initial is None:
                initial = (rng.standard_normal(shape) * scale).astype(np.float32)
            return tf1.get_variable(
                name, initializer=tf.constant(initial), use_resource=True,
                trainable=trainable,
            )  # fmt: skip

        conv = tf.nn.conv2d(
            x, variable("conv1/w", [3, 3, 3, 5]), 1, "SAME", name="conv1"
        )
        gamma = variable("bn/gamma", [5], 0.2) + 1.0
        beta = variable("bn/beta", [5])
        moving = [
            variable("bn/moving_mean", [5], trainable=False, initial=np.zeros(5, np.float32)),
            variable("bn/moving_variance", [5], trainable=False, initial=np.ones(5, np.float32)),
        ]  # fmt: skip
        reads = [
            tf.raw_ops.ReadVariableOp(resource=v.handle, dtype=tf.float32)
            for v in moving
        ]
        bn, *statistics = tf.raw_ops.FusedBatchNormV3(
            x=conv, scale=gamma, offset=beta,
            mean=tf.zeros([5]) if training else reads[0],
            variance=tf.ones([5]) if training else reads[1],
            epsilon=0.001, is_training=training, name="bn",
        )[:3]  # fmt: skip
        updates = []
        for variable_, read, batch, name in zip(
            moving, reads, statistics, ("mean", "var")
        ):
            if not training:
                break
            decay = tf.constant(BN_DECAY, name=f"decay_{name}")
            if folding is not None:
                decay = folding.decay(decay, f"freeze_moving_{name}")
            updates.append(
                variable_.assign_sub((read - batch) * decay, name=f"update_{name}")
            )
        if folding is not None:
            bn = folding.fold(conv.op, bn.op, *reads)
        r = activation(tf.nn.relu(bn, name="relu"), "relu")
        h = tf.nn.conv2d(
            r,
            weight(variable("conv2/w", [3, 3, 5, 4]), "conv2"),
            2,
            "VALID",
            name="conv2",
        )
        h = activation(tf.nn.bias_add(h, variable("conv2/b", [4])), "BiasAdd")
        pooled = tf.reduce_mean(h, axis=[1, 2], name="pool")
        logits = tf.matmul(
            pooled, weight(variable("dense/w", [4, 4]), "dense"), name="dense"
        )
        logits = activation(logits, "dense")
        tf.reduce_mean(tf.square(logits - y), name="loss")
        if training:
            tf.group(*updates, name="update")
        tf1.global_variables_initializer()  # "init"
    return graph


def trainable_variable(graph: tf.Graph, name: str):
    """The ResourceVariable of an imported graph's VarHandleOp, for an optimizer."""
    handle = graph.get_operation_by_name(name)
    read = next(
        op for op in graph.get_operations()
        if op.type == "ReadVariableOp" and op.inputs[0].op is handle
    )  # fmt: skip
    proto = variable_pb2.VariableDef(
        variable_name=handle.outputs[0].name, initializer_name="init",
        snapshot_name=read.outputs[0].name, is_resource=True, trainable=True,
    )  # fmt: skip
    return resource_variable_ops.ResourceVariable(variable_def=proto)


def train(graph_def, batches: list[dict], prefix: str) -> dict:
    """Import, add the optimizer after `update`, run STEPS steps."""
    graph = tf.Graph()
    with graph.as_default():
        tf1.import_graph_def(graph_def, name="")
        variables = [trainable_variable(graph, n) for n in TRAINABLE]
        loss = graph.get_tensor_by_name("loss:0")
        optimizer = tf1.train.MomentumOptimizer(0.05, 0.9)
        with tf.control_dependencies([graph.get_operation_by_name("update")]):
            step = optimizer.minimize(loss, var_list=variables)
        slots = tf1.variables_initializer(optimizer.variables())
        handles = [o for o in graph.get_operations() if o.type == "VarHandleOp"]
        reads = {
            h.name: tf.raw_ops.ReadVariableOp(resource=h.outputs[0], dtype=h.get_attr("dtype"))
            for h in handles if not h.name.endswith("/Momentum")
        }  # fmt: skip
    record = {}
    with tf1.Session(graph=graph) as session:
        session.run(["init", slots])
        for name, value in session.run(reads).items():
            record[f"{prefix}initial/{name}"] = value
        for k, feed in enumerate(batches):
            _, record[f"{prefix}loss{k}"] = session.run(
                [step, loss], {f"{n}:0": v for n, v in feed.items()}
            )
            for name, value in session.run(reads).items():
                record[f"{prefix}after{k}/{name}"] = value
    return record


def evaluate(graph: tf.Graph, variables: dict, inputs: list) -> list:
    """The eval graph's quantized logits with the trained variables."""
    with graph.as_default():
        handles = [o for o in graph.get_operations() if o.type == "VarHandleOp"]
        load = [
            tf.raw_ops.AssignVariableOp(resource=h.outputs[0], value=variables[h.name])
            for h in handles
        ]  # fmt: skip
    with tf1.Session(graph=graph) as session:
        session.run(load)
        return [session.run("dense/act_quant:0", {"x:0": x}) for x in inputs]


def folded_ops(graph: tf.Graph) -> dict[str, str]:
    return {name: graph.get_operation_by_name(name).type for name in FOLDED_OPS}


def main() -> None:
    tf1.disable_eager_execution()
    rng = np.random.default_rng(6)
    batches = [
        {"x": rng.standard_normal((2, 6, 6, 3)).astype(np.float32),
         "y": rng.standard_normal((2, 4)).astype(np.float32)}
        for _ in range(STEPS)
    ]  # fmt: skip
    fixture = HERE / "forward_conv_bn_relu.pbtxt"
    fixture.write_text(str(forward_graph().as_graph_def()))
    reference = forward_graph(BatchNormFolding(Quantization()))
    record = {f"step{k}/{n}": v for k, b in enumerate(batches) for n, v in b.items()}
    record.update(train(reference.as_graph_def(), batches, ""))
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "qat_fold.pb"
        error = export(fixture, ["loss", "update"], target, PASS)
        if error is not None:
            raise SystemExit(f"graph-opt could not export: {error}")
        record.update(train(load_graph(target).as_graph_def(), batches, "export_"))
    trained = {
        k.split("/", 1)[1]: v
        for k, v in record.items()
        if k.startswith(f"after{STEPS - 1}/")
    }
    (HERE / "eval_conv_bn_relu.pbtxt").write_text(
        str(forward_graph(training=False).as_graph_def())
    )
    inputs = [rng.standard_normal((2, 6, 6, 3)).astype(np.float32) for _ in range(3)]
    eval_reference = forward_graph(BatchNormFolding(EvalQuantization()), training=False)
    for k, (x, logits) in enumerate(
        zip(inputs, evaluate(eval_reference, trained, inputs))
    ):
        record[f"eval/x{k}"], record[f"eval/logits{k}"] = x, logits
    np.savez(HERE / "qat_fold.npz", **record)
    summary = {"placement": placement(reference), "folded_ops": folded_ops(reference)}
    (HERE / "qat_fold_reference.json").write_text(json.dumps(summary, indent=1) + "\n")
    report_difference(record, [k for k in record if k.startswith(("after", "loss"))])


if __name__ == "__main__":
    main()
