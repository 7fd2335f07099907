"""quantize{training=true}'s batch norm folding: TensorFlow's
fold_batch_norms._FoldFusedBatchNorms in training mode, with
_ComputeBatchNormCorrections (contrib/quantize, TF 1.15), on a forward
training graph (one whose gradients are not derived yet).

A conv or matmul read only by a training-mode batch norm (channels last) is
cloned as `<layer>_Fold` on folded weights, and the batch norm's output is
replaced by

    mul_fold = correction_scale * w * gamma * rsqrt(var + eps)
    add_fold = correction_recip * <layer>_Fold(x, mul_fold) + correction_offset
               + beta - mean * gamma * rsqrt(var + eps)
    correction_scale = rsqrt(moving_var + eps) / rsqrt(var + eps)

with `mean` and `var` the batch norm's batch statistics (Bessel's correction
of the variance undone), the batch norm staying for them. Before
`freeze_bn_delay` steps correction_recip = 1 / correction_scale and
correction_offset = 0: batch statistics. From that step of the quantization
step counter on, correction_recip = 1, correction_offset =
gamma * (mean * rsqrt(var + eps) - moving_mean * rsqrt(moving_var + eps)), and
the decay of the moving averages' updates (`moving -= (moving - batch) *
decay`, whose reads give moving_mean and moving_var) is 0, so the moving
statistics freeze and normalize. The batch norm gets TensorFlow's
`_gradient_op_type` FoldFusedBatchNormGrad, the gradient contrib/quantize
registers for it: its output is no longer read, the gradient reaches its
input through the batch statistics.

An inference-mode batch norm (an eval graph's, its mean and variance the
moving statistics) is folded as create_eval_graph folds it: mul_fold =
w * gamma * rsqrt(var + eps), add_fold = <layer>_Fold(x, mul_fold) + beta -
mean * gamma * rsqrt(var + eps), no corrections.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from graph_opt.dialects.effects import GRADIENT_OP_TYPE_ATTR
from graph_opt.dialects.nn.compare import SelectOp
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import (
    AddOp,
    DivOp,
    MulOp,
    ReciprocalOp,
    SqrtOp,
    SubOp,
)
from graph_opt.dialects.nn.layout import CHANNELS_LAST
from graph_opt.dialects.nn.linalg import MatMulOp
from graph_opt.dialects.nn.names import location_names
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.dialects.nn.shapes import DYN
from graph_opt.dialects.nn.training import BatchNormGradOp, BatchNormTrainingOp
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, record

FOLD_STATISTICS: Statistics = {
    "batch norms folded": "Training batch norms folded into the layer before them",
    "batch norms not folded": "Training batch norms left as they were (each warned about)",
}
FOLDED_GRADIENT = "FoldFusedBatchNormGrad"
FOLD = "BatchNorm_Fold/"
CORRECTION = f"{FOLD}batch_norm_correction/"


class Inserter(Protocol):
    def add(self, op: Operation, name: str) -> SSAValue: ...
    def constant(self, value, name: str, dtype=np.float32) -> SSAValue: ...


@dataclass
class FoldedLayer:
    original: Operation
    """The layer the batch norm reads, left computing the batch statistics."""
    layer: Operation
    """Its clone on the folded weights (operand 1)."""
    output: SSAValue
    """add_fold: what the batch norm's readers read now."""


@dataclass
class _MovingAverage:
    moving: SSAValue
    """The moving statistic's value the update reads."""
    update: MulOp
    """The update's `(moving - batch) * decay`."""
    decay_index: int


@dataclass
class _Match:
    layer: Operation
    bn: BatchNormTrainingOp | BatchNormOp
    mean: _MovingAverage | None
    variance: _MovingAverage | None
    """The moving averages of a training-mode batch norm."""


def _moving_average(batch: SSAValue) -> _MovingAverage | None:
    """The update `moving - (moving - batch) * decay` of a batch statistic."""
    for use in batch.uses:
        sub = use.operation
        if isinstance(sub, SubOp) and sub.rhs is batch and sub.lhs is not batch:
            mul = sub.output.get_user_of_unique_use()
            if isinstance(mul, MulOp) and mul.lhs is not mul.rhs:
                return _MovingAverage(sub.lhs, mul, 1 if mul.lhs is sub.output else 0)
    return None


def _has_gradient(layer: Operation, bn: BatchNormTrainingOp | BatchNormOp) -> bool:
    """Whether gradients were derived: the saved statistics only the gradient
    reads are read, or TensorFlow's gradient ops of the layer or batch norm exist."""
    if isinstance(bn, BatchNormTrainingOp) and (
        bn.saved_mean.uses or bn.saved_variance.uses
    ):
        return True
    block = bn.parent_block()
    names = [f"gradients/{n}_grad/" for op in (layer, bn) for n in location_names(op)]
    return block is not None and any(
        (isinstance(op, BatchNormGradOp) and op.input is bn.input)
        or any(n.startswith(p) for n in location_names(op) for p in names)
        for op in block.ops
    )


def _match(bn: BatchNormTrainingOp | BatchNormOp, is_parameter) -> _Match | str:
    """The batch norm's layer and moving averages, or why it is not folded."""
    layer = bn.input.owner
    if not isinstance(layer, ConvOp | MatMulOp):
        return "its input is not a conv or matmul"
    if _has_gradient(layer, bn):
        return (
            "its gradients are already derived: rewrite the forward graph, before "
            "the optimizer is added, as create_training_graph requires"
        )
    if not is_parameter(layer.operands[1]):
        return "its layer's weight is not a variable or constant"
    if isinstance(layer, ConvOp) and (
        layer.layout != CHANNELS_LAST or len(layer.operands) > 2
    ):
        return "its conv is not channels-last without bias"
    if bn.layout != CHANNELS_LAST:
        return "it is not channels-last"
    if not isinstance(bn.input.type, TensorType) or DYN in bn.input.type.get_shape():
        return "its input's shape is not static"
    if bn.input.get_user_of_unique_use() is not bn:
        return "its layer's output has other readers"
    factor = bn.properties.get("exponential_avg_factor")
    if factor is not None and factor.value.data != 1.0:  # type: ignore[attr-defined]
        return "it averages its statistics itself (exponential_avg_factor)"
    if not bn.output.uses:
        return "its output is not read"
    if isinstance(bn, BatchNormOp):
        return _Match(layer, bn, None, None)
    mean, variance = _moving_average(bn.batch_mean), _moving_average(bn.batch_variance)
    if mean is None or variance is None:
        return "no moving-average update reads its batch mean and variance"
    first_reader = min(_index(use.operation) for use in bn.output.uses)
    if any(_index(m.moving.owner) > first_reader for m in (mean, variance)):
        return "its moving statistics are read after its output"
    return _Match(layer, bn, mean, variance)


def _index(owner) -> int:
    block = owner.parent_block() if isinstance(owner, Operation) else None
    return -1 if block is None else block.get_operation_index(owner)


def _scope(layer: Operation) -> tuple[str, str]:
    """(TensorFlow's name scope of the layer with its '/', the layer's base name)."""
    name = (location_names(layer) or ["layer"])[0]
    scope, sep, base = name.rpartition("/")
    return scope + sep, base


class _Folding:
    """Builds one batch norm's folded ops, TensorFlow's names in its scope."""

    def __init__(self, match: _Match, at: Inserter, scope: str):
        self.match, self.at, self.scope = match, at, scope
        self.bn = match.bn
        epsilon = self.bn.properties["epsilon"].value.data  # type: ignore[attr-defined]
        self.epsilon = np.float32(epsilon)

    def op(self, cls, operands, name: str) -> SSAValue:
        return self.at.add(cls.create_inferred(list(operands)), self.scope + name)

    def rsqrt(self, variance: SSAValue, name: str) -> SSAValue:
        eps = self.at.constant(self.epsilon, f"{self.scope}{name}/y")
        shifted = self.op(AddOp, [variance, eps], f"{name}/add")
        root = self.op(SqrtOp, [shifted], f"{name}/Sqrt")
        return self.op(ReciprocalOp, [root], name)

    def batch_variance(self) -> SSAValue:
        """The batch variance without Bessel's correction (Undo_Bessel_Correction)."""
        x = self.bn.input.type.get_shape()  # type: ignore[attr-defined]
        n = np.float32(np.prod(x) // x[-1])
        bn_scope = _scope(self.bn)[0]
        factor = self.at.constant((n - 1) / n, f"{bn_scope}Undo_Bessel_Correction/y")
        return self.at.add(
            MulOp.create_inferred([self.bn.batch_variance, factor]),
            f"{bn_scope}Undo_Bessel_Correction",
        )

    def corrections(self, mean, variance, moving: _Match, freeze: SSAValue | None):
        """(correction_scale, correction_recip, correction_offset); the last two
        switch to the moving statistics with the `freeze` flag."""
        gamma = self.bn.scale
        prefix = CORRECTION
        moving_mean, moving_var = moving.mean.moving, moving.variance.moving  # type: ignore[union-attr]
        recip_sigma_mv = self.rsqrt(moving_var, f"{prefix}Rsqrt")
        recip_sigma = self.rsqrt(variance, f"{prefix}Rsqrt_1")
        scale = self.op(DivOp, [recip_sigma_mv, recip_sigma], f"{prefix}scale_compute")
        recip = self.op(ReciprocalOp, [scale], f"{prefix}reciprocal_compute")
        channels = self.bn.batch_mean.type.get_shape()  # type: ignore[attr-defined]
        zeros = self.at.constant(np.zeros(channels), f"{self.scope}{prefix}zeros")
        if freeze is None:
            return scale, recip, zeros
        normalized = self.op(MulOp, [mean, recip_sigma], f"{prefix}mul")
        centred = self.op(MulOp, [moving_mean, recip_sigma_mv], f"{prefix}mul_1")
        shift = self.op(SubOp, [normalized, centred], f"{prefix}sub")
        offset = self.op(MulOp, [gamma, shift], f"{prefix}offset_compute")
        ones = self.at.constant(np.ones(channels), f"{self.scope}{prefix}ones")
        recip = self.op(SelectOp, [freeze, ones, recip], f"{prefix}correction_recip")
        offset = self.op(
            SelectOp, [freeze, offset, zeros], f"{prefix}correction_offset"
        )
        return scale, recip, offset

    def fold(self, freeze: SSAValue | None) -> FoldedLayer:
        layer, bn, match = self.match.layer, self.bn, self.match
        if isinstance(bn, BatchNormTrainingOp):
            mean, variance = bn.batch_mean, self.batch_variance()
        else:
            mean, variance = bn.mean, bn.variance
        rsqrt = self.rsqrt(variance, f"{FOLD}Rsqrt")
        multiplier = self.op(MulOp, [bn.scale, rsqrt], f"{FOLD}mul")
        shift = self.op(MulOp, [mean, multiplier], f"{FOLD}mul_1")
        bias = self.op(SubOp, [bn.bias, shift], f"{FOLD}bias")
        weights = layer.operands[1]
        if match.mean is not None:
            scale, recip, offset = self.corrections(mean, variance, match, freeze)
            weights = self.op(MulOp, [scale, weights], "correction_mult")
        weights = self.op(MulOp, [weights, multiplier], "mul_fold")
        clone = layer.clone()
        clone.operands[1] = weights
        out = self.at.add(clone, f"{self.scope}{_scope(layer)[1]}_Fold")
        if match.mean is not None:
            out = self.op(MulOp, [recip, out], "post_conv_mul")
            out = self.op(AddOp, [out, offset], "correction_add")
            bn.attributes[GRADIENT_OP_TYPE_ATTR] = StringAttr(FOLDED_GRADIENT)
        out = self.op(AddOp, [out, bias], "add_fold")
        return FoldedLayer(layer, clone, out)


def fold_batch_norms(
    block: Block,
    inserter: Callable[[InsertPoint], Inserter],
    freeze: Callable[[str], SSAValue] | None,
    is_parameter: Callable[[SSAValue], bool],
) -> list[FoldedLayer]:
    """Fold each batch norm of the block that can be; `freeze` gives the flag,
    named, of the steps from freeze_bn_delay on (None: never)."""
    folded, refused = [], []
    norms = [
        op for op in block.ops if isinstance(op, BatchNormTrainingOp | BatchNormOp)
    ]
    for bn in norms:
        match = _match(bn, is_parameter)
        if isinstance(match, str):
            refused.append(f"{(location_names(bn) or ['batch norm'])[0]}: {match}")
            continue
        scope = _scope(match.layer)[0]
        flag = None
        if freeze is not None and match.mean is not None:
            flag = freeze(f"{scope}{CORRECTION}use_moving_average")
            _freeze_decays(match, flag, inserter)
        first_reader = min((use.operation for use in bn.output.uses), key=_index)
        at = inserter(InsertPoint.before(first_reader))
        result = _Folding(match, at, scope).fold(flag)
        bn.output.replace_all_uses_with(result.output)
        folded.append(result)
    record("batch norms folded", len(folded))
    record("batch norms not folded", len(refused))
    for reason in refused:
        warn(f"quantize: batch norm {reason}; not folded")
    return folded


def _freeze_decays(
    match: _Match, flag: SSAValue, inserter: Callable[[InsertPoint], Inserter]
) -> None:
    """The moving averages' decays become 0 from the freeze step on."""
    scope = _scope(match.layer)[0] + CORRECTION
    for average, name in (
        (match.mean, "freeze_moving_mean"),
        (match.variance, "freeze_moving_var"),
    ):
        update = average.update
        at = inserter(InsertPoint.before(update))
        zero = at.constant(0.0, f"{scope}{name}/zero")
        decay = update.operands[average.decay_index]
        chosen = at.add(SelectOp.create_inferred([flag, zero, decay]), scope + name)
        update.operands[average.decay_index] = chosen
