"""The `refine-shapes` pass: result types re-inferred once operands are known."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.dialects.nn.shapes import DYN, more_precise, ranked
from graph_opt.remarks import warn
from graph_opt.statistics import record


@dataclass(frozen=True)
class RefineShapesPass(ModulePass):
    """Give each nn result the most precise type its type rule now infers.

    A result typed when an operand was still computed (a reshape to a shape
    TensorFlow computes, `tensor<*xf32>` on import) becomes static once that
    operand is a constant (after fold-constants) or its operand types are
    refined; types propagate in order through the graph and into the signature
    of the functions that nothing calls. Values yielded to scf regions'
    parents, or returned by called functions, keep their type.
    """

    name = "refine-shapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refined = refine_shapes(op)
        record("result types refined", refined)
        if not refined:
            warn("refine-shapes: found no type to refine")


def refine_shapes(module: ModuleOp) -> int:
    """Refine result types in `module`; how many values changed type."""
    called = {
        c.callee.string_value() for c in module.walk() if isinstance(c, func.CallOp)
    }
    refined = 0
    for function in module.ops:
        if not isinstance(function, func.FuncOp) or function.is_declaration:
            continue
        signature_fixed = function.sym_name.data in called
        changed = 0
        for op in function.walk():
            if isinstance(op, NNOperation):
                changed += _refine(op, signature_fixed)
        if not signature_fixed and (changed or _returns_differ(function)):
            function.update_function_type()
        refined += changed
    return refined


def _returns_differ(function: func.FuncOp) -> bool:
    """Whether what the function returns has other types than its signature says
    (a value forwarded to its return refined them)."""
    terminator = function.body.blocks.last.last_op if function.body.blocks else None
    if not isinstance(terminator, func.ReturnOp):
        return False
    returned = [v.type for v in terminator.operands]
    return returned != list(function.function_type.outputs.data)


def _refine(op: NNOperation, signature_fixed: bool) -> int:
    if all(_is_static(r.type) for r in op.results):
        return 0  # nothing more precise than a static type
    try:
        inferred = op.rule_result_types(list(op.operands), op.properties)
    except VerifyException:
        return 0  # the verifier reports it
    if inferred is None or len(inferred) != len(op.results):
        return 0
    changed = 0
    for result, new_type in zip(list(op.results), inferred):
        if more_precise(new_type, result.type) and _retypable(result, signature_fixed):
            Rewriter.replace_value_with_new_type(result, new_type)
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


def _retypable(value: SSAValue, signature_fixed: bool) -> bool:
    """nn users take any refinement; other users tie the type: an scf
    terminator to its parent op, an scf.while's initial value to its block
    arguments, a func.return to the signature of a function that is called."""
    for use in value.uses:
        user: Operation = use.operation
        if isinstance(user, NNOperation):
            continue  # nn ops take a more precise operand type
        if signature_fixed or not isinstance(user, func.ReturnOp):
            return False  # an scf.while's initial value types its block arguments
    return True
