"""Types refined across scf region boundaries.

An scf.while carries each loop value with one type for every iteration, and
an scf.if's result has one type for both branches; importers give them the
join of what flows in (`tensor.cast` where a value is more precise). Once
refinement makes the values that flow in more precise, the carried types can
be too: a loop value whose initial and yielded values are both `2x16` is
`2x16`, not the `?x?` its start value had on import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import func, scf, tensor
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.dialects.nn.shapes import DYN, more_precise, ranked
from graph_opt.rewriting.op_dispatch import walk_ops

RefineOp = Callable[[NNOperation], object]
"""Refines one nn op's result types."""


def refine_region_types(
    function: func.FuncOp, signature_fixed: bool, refine_op: RefineOp
) -> int:
    """Refine the carried types of every scf.while and scf.if in `function`;
    how many block arguments and results changed type. A result the function
    returns keeps its type unless the signature may follow (`signature_fixed`
    false: nothing calls the function)."""
    changed = 0
    for op in list(walk_ops(function.body, reverse=False, region_first=False)):
        if isinstance(op, scf.WhileOp):
            changed += _refine_while(op, signature_fixed, refine_op)
        elif isinstance(op, scf.IfOp):
            changed += _refine_if(op, signature_fixed)
    return changed


def fold_casts(function: func.FuncOp) -> None:
    """Drop the casts refinement leaves with nothing to do: to their source's
    own type, of a cast (cast its source once), or unused."""
    for cast in [
        o for o in function.walk(reverse=True) if isinstance(o, tensor.CastOp)
    ]:
        source = _source(cast.source)
        if source.type == cast.dest.type:
            cast.dest.replace_all_uses_with(source)
        elif source is not cast.source:
            cast.operands[0] = source
        if not cast.dest.uses:
            Rewriter.erase_op(cast)


def retype(value: SSAValue, new_type: Attribute, keep: set[Operation]) -> SSAValue:
    """Give `value` `new_type`; users that are not nn ops (nor in `keep`) keep
    reading the old type through a `tensor.cast`."""
    old_type = value.type
    value = Rewriter.replace_value_with_new_type(value, new_type)
    for use in list(value.uses):
        user = use.operation
        if isinstance(user, NNOperation) or user in keep:
            continue
        if isinstance(user, tensor.CastOp) and user.dest.type == old_type:
            continue  # still a valid cast from the more precise type
        cast = tensor.CastOp(value, old_type)
        Rewriter.insert_op(cast, InsertPoint.before(user))
        user.operands[use.index] = cast.dest
    return value


def _source(value: SSAValue) -> SSAValue:
    """The value `tensor.cast`s (if any) make less precise."""
    while isinstance(value.owner, tensor.CastOp):
        value = value.owner.source
    return value


def _join(types: Sequence[Attribute]) -> Attribute | None:
    """The most precise ranked type all `types` cast to, if they have one rank."""
    shapes = [ranked(t) for t in types]
    if any(s is None for s in shapes):
        return None
    first = shapes[0]
    if any(len(s.get_shape()) != len(first.get_shape()) for s in shapes):
        return None
    if any(s.element_type != first.element_type for s in shapes):
        return None
    dims = [
        d if all(s.get_shape()[i] == d for s in shapes) else DYN
        for i, d in enumerate(first.get_shape())
    ]
    return type(first)(first.element_type, dims)


def _feed(op: Operation, index: int, value: SSAValue, to: Attribute) -> None:
    """Make operand `index` of `op` `value`, cast to `to` if it differs."""
    source = _source(value)
    if source.type != to:
        cast = tensor.CastOp(source, to)
        Rewriter.insert_op(cast, InsertPoint.before(op))
        source = cast.dest
    old = op.operands[index]
    op.operands[index] = source
    _erase_if_unused_cast(old)


def _erase_if_unused_cast(value: SSAValue) -> None:
    owner = value.owner
    if isinstance(owner, tensor.CastOp) and not owner.dest.uses:
        Rewriter.erase_op(owner)


def _loop_ends(op: scf.WhileOp) -> tuple[scf.ConditionOp, scf.YieldOp] | None:
    before, after = op.before_region.blocks, op.after_region.blocks
    if len(before) != 1 or len(after) != 1:
        return None
    condition, body_end = before.first.last_op, after.first.last_op
    if isinstance(condition, scf.ConditionOp) and isinstance(body_end, scf.YieldOp):
        return condition, body_end
    return None


def _refine_while(op: scf.WhileOp, signature_fixed: bool, refine_op: RefineOp) -> int:
    ends = _loop_ends(op)
    if ends is None:
        return 0
    changed = 0
    carried = _carried_types(op, refine_op)
    if carried is not None:
        condition, body_end = ends
        for i, arg in enumerate(op.before_region.block.args):
            if not more_precise(carried[i], arg.type):
                continue
            retype(arg, carried[i], set())
            _feed(op, i, op.arguments[i], carried[i])
            _feed(body_end, i, body_end.arguments[i], carried[i])
            changed += 1
    condition, body_end = ends
    for j, arg in enumerate(op.after_region.block.args):
        new = _source(condition.args[j]).type
        if not more_precise(new, arg.type):
            continue
        retype(arg, new, set())
        retype(op.results[j], new, followed_returns(op.results[j], signature_fixed))
        _feed(condition, j + 1, condition.args[j], new)
        changed += 2
    return changed


def _carried_types(op: scf.WhileOp, refine_op: RefineOp) -> list[Attribute] | None:
    """The most precise types the loop can carry, if more precise than now:
    starting from the initial values' types, a trial copy of the loop is
    refined and each type joined with what the body then yields, until the
    body yields what is assumed (each join only loosens: few rounds)."""
    current = [a.type for a in op.before_region.block.args]
    initial = [_source(v).type for v in op.arguments]
    assumed = [i if more_precise(i, t) else t for i, t in zip(initial, current)]
    if assumed == current:
        return None
    for _ in range(MAX_ROUNDS):
        yielded = _trial_yield_types(op, assumed, refine_op)
        if yielded is None:
            return None
        joined = [_join([a, y]) or t for a, y, t in zip(assumed, yielded, current)]
        if joined == assumed:
            return assumed
        assumed = joined
    return None


MAX_ROUNDS = 8
"""Trial refinements of one loop before its types are left as they are."""


def _trial_yield_types(
    op: scf.WhileOp, assumed: Sequence[Attribute], refine_op: RefineOp
) -> list[Attribute] | None:
    """What a copy of the loop's body yields once its arguments have `assumed`."""
    trial = op.clone()
    try:
        ends = _loop_ends(trial)
        if ends is None:
            return None
        condition, body_end = ends
        for arg, t in zip(trial.before_region.block.args, assumed):
            if more_precise(t, arg.type):
                retype(arg, t, set())
        _refine_all(trial.before_region, refine_op)
        for j, arg in enumerate(trial.after_region.block.args):
            new = _source(condition.args[j]).type
            if more_precise(new, arg.type):
                retype(arg, new, set())
        _refine_all(trial.after_region, refine_op)
        return [_source(v).type for v in body_end.arguments]
    finally:
        trial.erase()


def _refine_all(region: Region, refine_op: RefineOp) -> None:
    for inner in list(walk_ops(region, reverse=False, region_first=False)):
        if isinstance(inner, NNOperation):
            refine_op(inner)


def _refine_if(op: scf.IfOp, signature_fixed: bool) -> int:
    regions = (op.true_region, op.false_region)
    if not op.results or not all(r.blocks for r in regions):
        return 0  # an if without results may have no else region
    yields = [r.blocks.last.last_op for r in regions]
    if not all(isinstance(y, scf.YieldOp) for y in yields):
        return 0
    changed = 0
    for i, result in enumerate(op.results):
        new = _join([_source(y.operands[i]).type for y in yields])
        if new is None or not more_precise(new, result.type):
            continue
        retype(result, new, followed_returns(result, signature_fixed))
        for y in yields:
            _feed(y, i, y.operands[i], new)
        changed += 1
    return changed


def followed_returns(value: SSAValue, signature_fixed: bool) -> set[Operation]:
    """The func.returns of `value` when the function's signature follows them."""
    if signature_fixed:
        return set()
    return {u.operation for u in value.uses if isinstance(u.operation, func.ReturnOp)}
