"""Reshapes moved below elementwise ops: exporters that flatten rows for a
matmul write `gemm -> reshape to [b, s, n] -> activation -> reshape to [-1, n]
-> gemm`; with the first reshape below the activation the two meet, merge and,
giving the gemm's own shape back, go."""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from graph_opt.dialects.nn.elementwise import ElementwiseBinaryOp, ElementwiseUnaryOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.dialects.nn.shapes import DYN, ranked


def _is_scalar(value: SSAValue, rank: int) -> bool:
    """Whether `value` has one element and at most `rank` dims, so that it
    broadcasts against a tensor of that rank without changing its shape."""
    value_type = ranked(value)
    if value_type is None:
        return False
    shape = value_type.get_shape()
    return len(shape) <= rank and all(d == 1 for d in shape) and DYN not in shape


class SinkReshapeBelowElementwise(RewritePattern):
    """op(reshape(x, t)) is reshape(op(x), t) for an elementwise op whose other
    operand, if any, is one element (a scalar or a [1, 1] splat); the reshape
    must have no other user, so no op is added. Exact: the same operations on
    the same elements."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: ElementwiseUnaryOp | ElementwiseBinaryOp, rewriter: PatternRewriter
    ):
        if len(op.results) != 1:
            return  # dropout with its mask: the mask keeps the reshaped shape
        reshapes = [v for v in op.operands if isinstance(v.owner, ReshapeOp)]
        if not reshapes or any(v is not reshapes[0] for v in reshapes):
            return  # no reshaped operand, or two different ones
        reshaped = reshapes[0]
        reshape = reshaped.owner
        if not isinstance(reshape, ReshapeOp):
            return  # (checked above; narrows the type)
        x, result = ranked(reshape.input), ranked(op.output)
        if x is None or result is None or result != ranked(reshaped):
            return  # unranked, or the result has another shape or element type
        if any(use.operation is not op for use in reshaped.uses):
            return  # the reshape stays for its other users: one op more
        others = [v for v in op.operands if v is not reshaped]
        if not all(_is_scalar(v, x.get_num_dims()) for v in others):
            return  # an operand that would broadcast along the reshaped dims
        operands = [reshape.input if v is reshaped else v for v in op.operands]
        moved = type(op).create_inferred(operands, op.properties)
        if ranked(moved.results[0]) != x:
            return  # the op would change the element type (a comparison)
        sunk = ReshapeOp.create_inferred(
            [moved.results[0], reshape.shape], reshape.properties, [op.output.type]
        )
        rewriter.replace(op, [moved, sunk], sunk.results)


RESHAPE_SINKING_PATTERNS: tuple[type[RewritePattern], ...] = (
    SinkReshapeBelowElementwise,
)
"""Every reshape-sinking rewrite; instantiate them for a walker."""
