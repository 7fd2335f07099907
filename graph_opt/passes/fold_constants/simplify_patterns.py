"""Patterns that remove ops which are identities for the shapes and constants they get."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import i64_array, int_list
from graph_opt.dialects.nn.compare import LogicalAndOp, LogicalOrOp, SelectOp
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.elementwise import AddOp, ClipOp, DivOp, MulOp, SubOp
from graph_opt.dialects.nn.reduce import ReduceOp, reduced_axes
from graph_opt.dialects.nn.shape_ops import FlattenOp, ReshapeOp, SqueezeOp, UnsqueezeOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.dialects.nn.tensor_ops import CastOp, ConcatOp, PadOp, TransposeOp
from graph_opt.rewriting.value_forwarding import forward_operand


def is_static(value: SSAValue) -> bool:
    t = ranked(value)
    return t is not None and DYN not in t.get_shape()


class RemoveNoOpReshape(RewritePattern):
    """Reshape, flatten, squeeze or unsqueeze to the input's own static shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: ReshapeOp | FlattenOp | SqueezeOp | UnsqueezeOp,
        rewriter: PatternRewriter,
    ):
        if not is_static(op.input):
            return
        try:
            inferred = op.infer_result_types(list(op.operands), op.properties)
        except VerifyException:
            return  # refined operands made the op invalid: the verifier reports it
        if inferred is None or inferred[0] != op.input.type:
            return
        forward_operand(rewriter, op, op.input)


class RemoveIdentityTranspose(RewritePattern):
    """Transpose by the identity permutation."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter):
        x = ranked(op.input)
        if x is None:
            return
        rank = x.get_num_dims()
        if tuple(op.permutation(op.properties, rank)) != tuple(range(rank)):
            return
        forward_operand(rewriter, op, op.input)


class RemoveSameTypeCast(RewritePattern):
    """Cast to the element type the input already has."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter):
        if op.to != getattr(op.input.type, "element_type", None):
            return
        forward_operand(rewriter, op, op.input)


class RemoveZeroPad(RewritePattern):
    """Pad by zero everywhere."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PadOp, rewriter: PatternRewriter):
        if any(int_list(op.properties, "pads") or ()):
            return
        forward_operand(rewriter, op, op.input)


class RemoveUnboundedClip(RewritePattern):
    """Clip with neither a min nor a max."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ClipOp, rewriter: PatternRewriter):
        if op.min is not None or op.max is not None:
            return
        forward_operand(rewriter, op, op.input)


class RemoveSingleConcat(RewritePattern):
    """Concatenation of one input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConcatOp, rewriter: PatternRewriter):
        if len(op.inputs) != 1:
            return
        forward_operand(rewriter, op, op.inputs[0])


def broadcast_keeps_shape(shape: Sequence[int], other: Sequence[int]) -> bool:
    """Whether broadcasting `shape` with the static `other` surely gives `shape`."""
    if len(other) > len(shape):
        return False
    return all(
        o == 1 or (o == d and d != DYN)
        for d, o in zip(reversed(shape), reversed(other))
    )


def is_neutral(operand: SSAValue, neutral: int, x: SSAValue) -> bool:
    """Whether `operand` is a constant filled with `neutral` that leaves x's shape as is."""
    value, x_type = constant_value(operand), ranked(x)
    return (
        value is not None
        and x_type is not None
        and broadcast_keeps_shape(x_type.get_shape(), value.shape)
        and bool((value == neutral).all())
    )


class RemoveNeutralOperand(RewritePattern):
    """x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1, when broadcasting keeps x's shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: AddOp | SubOp | MulOp | DivOp, rewriter: PatternRewriter
    ):
        neutral = 0 if isinstance(op, AddOp | SubOp) else 1
        if is_neutral(op.rhs, neutral, op.lhs):
            forward_operand(rewriter, op, op.lhs)
        elif isinstance(op, AddOp | MulOp) and is_neutral(op.lhs, neutral, op.rhs):
            forward_operand(rewriter, op, op.rhs)


class RemoveNeutralLogical(RewritePattern):
    """x and true, true and x, x or false, false or x, when broadcasting keeps x's shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: LogicalAndOp | LogicalOrOp, rewriter: PatternRewriter
    ):
        neutral = isinstance(op, LogicalAndOp)
        if is_neutral(op.rhs, neutral, op.lhs):
            forward_operand(rewriter, op, op.lhs)
        elif is_neutral(op.lhs, neutral, op.rhs):
            forward_operand(rewriter, op, op.rhs)


class RemoveConstantSelect(RewritePattern):
    """select(true, a, b) is a, select(false, a, b) is b, when broadcasting
    the condition and the other branch keeps the chosen one's shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SelectOp, rewriter: PatternRewriter):
        condition = constant_value(op.condition)
        if condition is None:
            return
        if condition.all():
            chosen, other = op.on_true, op.on_false
        elif not condition.any():
            chosen, other = op.on_false, op.on_true
        else:
            return  # a mix picks from both
        chosen_type, other_type = ranked(chosen), ranked(other)
        if chosen_type is None or other_type is None:
            return
        shape = chosen_type.get_shape()
        if not (
            broadcast_keeps_shape(shape, condition.shape)
            and broadcast_keeps_shape(shape, other_type.get_shape())
        ):
            return  # the other operands would broadcast the result larger
        forward_operand(rewriter, op, chosen)


class RemoveUnitReduction(RewritePattern):
    """Mean, sum, max or min over size-1 axes: the input, squeezed unless keepdims."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceOp, rewriter: PatternRewriter):
        x = ranked(op.input)
        if x is None:
            return
        shape = x.get_shape()
        try:
            axes = reduced_axes(op.properties, len(shape))
        except VerifyException:
            return  # refined operands made the op invalid: the verifier reports it
        if any(shape[a] != 1 for a in axes):
            return
        if op.keeps_dims or not axes:
            forward_operand(rewriter, op, op.input)
            return
        squeeze = SqueezeOp.create_inferred(
            [op.input], {"axes": i64_array(axes)}, [op.output.type]
        )
        rewriter.replace(op, squeeze)


SIMPLIFY_PATTERNS: tuple[type[RewritePattern], ...] = (
    RemoveNoOpReshape,
    RemoveIdentityTranspose,
    RemoveSameTypeCast,
    RemoveZeroPad,
    RemoveUnboundedClip,
    RemoveSingleConcat,
    RemoveNeutralOperand,
    RemoveNeutralLogical,
    RemoveConstantSelect,
    RemoveUnitReduction,
)
"""Every simplification; instantiate them for a walker."""
