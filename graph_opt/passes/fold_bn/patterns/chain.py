"""The chain between a linear op and a batch norm (or a decomposed one) that folds into it.

A chain is a path of single-use values from a linear op through transparent ops
(identity, stop_gradient, dropout, a reshape that keeps the channel axis) and
per-channel affine ops (add, sub, mul, div by a constant) to an anchor: an
nn.batch_norm, or the last affine op of a decomposed batch norm.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects.nn.elementwise import (
    AddOp,
    DivOp,
    IdentityOp,
    MulOp,
    StopGradientOp,
    SubOp,
)
from graph_opt.dialects.nn.layout import channel_axis
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.dialects.nn.tensor_ops import DropoutOp
from graph_opt.passes.common.constant_eval import computed_constant
from graph_opt.passes.fold_bn.patterns.channels import (
    ChannelAffine,
    batch_norm_affine,
    channel_vector,
    reshaped_channel_axis,
)
from graph_opt.passes.fold_bn.patterns.linear import (
    OutputChannelFold,
    output_channel_fold,
)
from graph_opt.passes.fold_bn.patterns.weights import (
    FreedConstants,
    erase_unused,
    float64_rows,
    float_constant_op,
    operand_constants,
)
from graph_opt.rewriting.erasure import erase_op
from graph_opt.xdsl_compat.ir import operand_values

TRANSPARENT_OPS = (IdentityOp, StopGradientOp, DropoutOp)
SHIFT_OPS = (AddOp, SubOp)
SCALE_OPS = (MulOp, DivOp)
AFFINE_OPS = SHIFT_OPS + SCALE_OPS
KEPT_OPS = (*TRANSPARENT_OPS, ReshapeOp)
"""Chain ops that stay after a fold (they commute with the per-channel map)."""
CHAIN_OPS = (*KEPT_OPS, BatchNormOp)
"""Chain ops (or anchors) whose first operand is the value they transform."""


@dataclass(frozen=True)
class ChainFold:
    """A linear op and the chain after it, folded by one composed affine map."""

    linear: Operation
    fold: OutputChannelFold
    affine: ChannelAffine
    chain: list[Operation]
    """The ops from the linear op to the anchor, in data-flow order."""

    @property
    def has_scale(self) -> bool:
        return any(isinstance(op, SCALE_OPS) for op in self.chain)


def affine_operands(op: Operation) -> tuple[SSAValue, np.ndarray] | None:
    """(data, constant) of an add/sub/mul/div with one channel-shaped constant
    operand (every dim 1 but at most one), or None. Only add and mul may take the
    constant first: `c - x` and `c / x` are not matched."""
    if not isinstance(op, AFFINE_OPS):
        return None
    lhs, rhs = (_channel_constant(v) for v in op.operands)
    commutative = isinstance(op, AddOp | MulOp)
    if rhs is not None and lhs is None:
        data, constant = op.operands[0], rhs
    elif commutative and lhs is not None and rhs is None:
        data, constant = op.operands[1], lhs
    else:
        return None
    if sum(size != 1 for size in constant.shape) > 1:
        return None
    return data, constant


def _channel_constant(value: SSAValue) -> np.ndarray | None:
    """A constant (possibly computed from constants, as TF's decomposed batch
    norm computes its scale) whose static shape has at most one dim above 1."""
    t = ranked(value)
    if t is None or sum(d != 1 for d in t.get_shape()) > 1:
        return None
    return computed_constant(value)


def chain_input(op: Operation) -> SSAValue | None:
    """The value a chain op (or anchor) transforms, or None for ops outside chains."""
    if isinstance(op, CHAIN_OPS):
        return op.operands[0]
    operands = affine_operands(op)
    return None if operands is None else operands[0]


def continues_chain(op: Operation) -> bool:
    """Whether `op`'s result reaches an affine op through single-use transparent
    ops: then that later op is the anchor, and walking from `op` would repeat it."""
    value = op.results[0]
    while (user := value.get_user_of_unique_use()) is not None:
        if affine_operands(user) is not None:
            return True
        if not isinstance(user, KEPT_OPS):
            return False
        value = user.results[0]
    return False


def plan_chain_fold(anchor: Operation) -> ChainFold | str:
    """The fold of `anchor` and its chain into the linear op before it, or why not."""
    chain, inputs = [anchor], [chain_input(anchor)]
    while True:
        value = inputs[-1]
        producer = value.owner if value is not None else None
        if not isinstance(producer, Operation):
            return "its input is a function argument"
        if value.has_more_than_one_use():  # type: ignore[union-attr]
            return f"the {producer.name} result it reads has other users"
        if isinstance(producer, BatchNormOp):
            break
        producer_input = chain_input(producer)
        if producer_input is None:
            break
        chain.append(producer)
        inputs.append(producer_input)
    chain.reverse()
    inputs.reverse()
    fold = output_channel_fold(producer)
    if isinstance(fold, str):
        return fold
    axis, affine = fold.axis, None
    for op, op_input in zip(chain, inputs):
        step = _channel_step(op, op_input, axis, fold.channels)  # type: ignore[arg-type]
        if isinstance(step, str):
            return step
        axis, op_affine = step
        if op_affine is not None:
            affine = op_affine if affine is None else affine.then(op_affine)
    if affine is None:
        affine = ChannelAffine.identity(fold.channels)
    refusal = fold.refuses(affine)
    if refusal is not None:
        return refusal
    return ChainFold(producer, fold, affine, chain)


def _channel_step(
    op: Operation, op_input: SSAValue, axis: int, channels: int
) -> tuple[int, ChannelAffine | None] | str:
    """Where the channels are after `op` (reading `op_input`) and the map it
    applies to them, or why it does not fold."""
    shape = ranked(op_input)
    if shape is None:
        return f"the {op.name} input is unranked"
    in_shape = shape.get_shape()
    if isinstance(op, TRANSPARENT_OPS):
        return axis, None
    if isinstance(op, ReshapeOp):
        out = ranked(op.output)
        new_axis = (
            reshaped_channel_axis(in_shape, out.get_shape(), axis) if out else None
        )
        if new_axis is None:
            return "an nn.reshape on the way moves or splits the channel axis"
        return new_axis, None
    if isinstance(op, BatchNormOp):
        bn_axis = channel_axis(op.layout, len(in_shape))
        if bn_axis != axis:
            return f"it normalizes axis {bn_axis}, but the channels of the linear op are on axis {axis}"
        affine = batch_norm_step(op, channels)
    else:
        _, constant = affine_operands(op)  # type: ignore[misc]
        vector = channel_vector(constant, in_shape, axis)
        if vector is None:
            return f"the {op.name} constant is not per-channel on axis {axis}"
        affine = _elementwise_step(op, vector)
    return affine if isinstance(affine, str) else (axis, affine)


BATCH_NORM_ROLES = ("scale", "bias", "mean", "variance")
"""What an nn.batch_norm's operands after its input hold, in order."""


def batch_norm_step(op: BatchNormOp, channels: int) -> ChannelAffine | str:
    constants = []
    for role, value in zip(BATCH_NORM_ROLES, operand_values(op)[1:]):
        constant = float_constant_op(value, f"the batch norm {role}")
        if isinstance(constant, str):
            return constant
        if constant.value.type.get_shape() != (channels,):
            return f"the batch norm {role} does not have {channels} channels"
        constants.append(constant)
    return batch_norm_affine(float64_rows(constants), op.epsilon.value.data)


def _elementwise_step(op: Operation, vector: np.ndarray) -> ChannelAffine | str:
    ones, zeros = np.ones_like(vector), np.zeros_like(vector)
    if isinstance(op, AddOp):
        return ChannelAffine(ones, vector)
    if isinstance(op, SubOp):
        return ChannelAffine(ones, -vector)
    if isinstance(op, MulOp):
        return ChannelAffine(vector, zeros)
    if np.any(vector == 0):
        return "the nn.div constant has zeros"
    return ChannelAffine(1 / vector, zeros)


def erase_chain_fold(plan: ChainFold, rewriter: PatternRewriter) -> None:
    """Replace the linear op by its folded form and drop the folded ops after it."""
    doomed = [op for op in plan.chain if not isinstance(op, KEPT_OPS)]
    constants = operand_constants([plan.linear, *doomed])
    # a reused freed constant keeps its type: chain_input still finds the data operand
    plan.fold.rewrite(plan.affine, rewriter, FreedConstants.read_only_by(doomed))
    for op in reversed(doomed):
        rewriter.replace_all_uses_with(op.results[0], chain_input(op))
        erase_op(rewriter, op)
    erase_unused(constants, rewriter)
