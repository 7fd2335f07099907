"""The `refine-shapes` pass: result types re-inferred once operands are known."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.dialects.nn.shapes import DYN, more_precise, ranked
from graph_opt.passes.refine_shapes.region_types import (
    fold_casts,
    followed_returns,
    refine_region_types,
    retype,
)
from graph_opt.remarks import warn
from graph_opt.rewriting.op_dispatch import walk_ops
from graph_opt.statistics import Statistics, record


@dataclass(frozen=True)
class RefineShapesPass(ModulePass):
    """Give each nn result the most precise type its type rule now infers.

    A result typed when an operand was still computed (a reshape to a shape
    TensorFlow computes, `tensor<*xf32>` on import) becomes static once that
    operand is a constant (after fold-constants) or its operand types are
    refined; types propagate in order through the graph, through loops and
    conditionals (a loop value takes the join of its initial and yielded
    types) and into the signature of the functions that nothing calls. Where
    a user needs the old type (a called function's return), it reads the
    value through a `tensor.cast`.
    """

    name = "refine-shapes"

    statistics: ClassVar[Statistics] = {
        "result types refined": "Op results given a more precise type",
    }

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refined = refine_shapes(op)
        record("result types refined", refined)
        if not refined:
            warn("refine-shapes: found no type to refine")


def refine_shapes(module: ModuleOp) -> int:
    """Refine result types in `module`; how many values changed type."""
    called = {
        c.callee.string_value()
        for c in walk_ops(module.body, reverse=False, region_first=False)
        if isinstance(c, func.CallOp)
    }
    refined = 0
    for function in module.ops:
        if not isinstance(function, func.FuncOp) or function.is_declaration:
            continue
        signature_fixed = function.sym_name.data in called
        changed = _refine_ops(function, signature_fixed)
        while regions := refine_region_types(
            function, signature_fixed, partial(_refine, signature_fixed=signature_fixed)
        ):
            changed += regions + _refine_ops(function, signature_fixed)
        if changed:
            fold_casts(function)
        if not signature_fixed and (changed or _returns_differ(function)):
            function.update_function_type()
        refined += changed
    return refined


def _refine_ops(function: func.FuncOp, signature_fixed: bool) -> int:
    changed = 0
    for op in list(walk_ops(function.body, reverse=False, region_first=False)):
        if isinstance(op, NNOperation) and not _all_static(op.results):
            changed += _refine(op, signature_fixed)
    return changed


def _all_static(results) -> bool:
    for result in results:
        if not _is_static(result.type):
            return False
    return True


def _returns_differ(function: func.FuncOp) -> bool:
    """Whether what the function returns has other types than its signature says
    (a value forwarded to its return refined them)."""
    terminator = function.body.blocks.last.last_op if function.body.blocks else None
    if not isinstance(terminator, func.ReturnOp):
        return False
    returned = [v.type for v in terminator.operands]
    return returned != list(function.function_type.outputs.data)


def _refine(op: NNOperation, signature_fixed: bool) -> int:
    if _all_static(op.results):
        return 0  # nothing more precise than a static type
    try:
        inferred = op.rule_result_types(list(op.operands), op.properties)
    except VerifyException:
        return 0  # the verifier reports it
    if inferred is None or len(inferred) != len(op.results):
        return 0
    changed = 0
    for result, new_type in zip(list(op.results), inferred):
        if more_precise(new_type, result.type):
            retype(result, new_type, followed_returns(result, signature_fixed))
            changed += 1
    return changed


_STATIC: dict[int, tuple[Attribute, bool]] = {}
"""Whether a type is a ranked tensor of static dims, by the identity of the
(interned) type object, which the entry keeps alive."""


def _is_static(t: Attribute) -> bool:
    known = _STATIC.get(id(t))
    if known is None:
        ranked_type = ranked(t)
        static = ranked_type is not None and DYN not in ranked_type.get_shape()
        if len(_STATIC) > 1 << 16:
            _STATIC.clear()
        known = _STATIC[id(t)] = (t, static)
    return known[1]
