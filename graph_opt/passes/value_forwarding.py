"""Replacing an op by one of its operands (or another existing value)."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.passes.erasure import replace_by_values


def can_forward(result: SSAValue, value: SSAValue) -> bool:
    """Whether `value` may replace `result`: same type, or only nn ops use it.

    nn ops accept a more or less refined operand type; other users (func.return)
    need the exact type.
    """
    return value.type == result.type or all(
        isinstance(use.operation, NNOperation) for use in result.uses
    )


def forward_operand(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> None:
    """Replace the single-result `op` by `value`, unless the types forbid it."""
    if can_forward(op.results[0], value):
        replace_by_values(rewriter, op, [value])
