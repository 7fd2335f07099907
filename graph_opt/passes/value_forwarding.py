"""Replacing an op by one of its operands (or another existing value)."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.dialects.nn.shapes import more_precise
from graph_opt.passes.erasure import replace_by_values


def can_forward(result: SSAValue, value: SSAValue) -> bool:
    """Whether `value` may replace `result`: same type, or only nn ops use it,
    or `value` refines `result`'s type and the other users are returns of
    functions that nothing calls (`refine_shapes` then updates their signatures).

    nn ops accept a more or less refined operand type; other users need the
    exact type.
    """
    if value.type == result.type:
        return True
    refines = None
    for use in result.uses:
        user = use.operation
        if isinstance(user, NNOperation):
            continue
        if refines is None:
            refines = more_precise(value.type, result.type)
        if not (refines and isinstance(user, func.ReturnOp) and _uncalled(user)):
            return False
    return True


def _uncalled(terminator: Operation) -> bool:
    """Whether `terminator` returns from a top-level function that no call names."""
    function = terminator.parent_op()
    module = function.parent_op() if function is not None else None
    if not isinstance(function, func.FuncOp) or not isinstance(module, ModuleOp):
        return False
    name = function.sym_name.data
    return not any(
        isinstance(op, func.CallOp) and op.callee.string_value() == name
        for op in module.walk()
    )


def forward_operand(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> None:
    """Replace the single-result `op` by `value`, unless the types forbid it."""
    if can_forward(op.results[0], value):
        replace_by_values(rewriter, op, [value])
