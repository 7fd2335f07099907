"""Loop-carried values that an scf.while writes but never reads.

Keras' LSTM without `return_sequences` keeps its output in a one-slot
TensorList: a loop value each iteration overwrites with `unsqueeze(h)` and no
iteration reads. Such a value is either dead (its result unused: the slot goes)
or a pure function of another loop value's final state (`unsqueeze(h_final)`,
computed once after the loop). Carrying it costs a copy per iteration, and IREE
3.13 crashes on loops that carry one (tests/lowering/test_tosa_control_flow_iree.py).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import scf
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.passes.common.constant_eval import computed_constant, evaluate_op
from graph_opt.rewriting.purity import is_pure

MAX_CHAIN = 8
"""Ops between the written value and the loop value it is computed from."""


class RemoveWriteOnlyLoopValues(RewritePattern):
    """Drop a loop-carried value no iteration reads: unused, or recomputed after
    the loop from the final value of the loop value it is a pure function of
    (when its initial value is that same function of the other's initial value,
    so a loop that runs zero times gives it too)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter):
        if not _aligned(op):
            return
        for slot in range(len(op.results)):
            if not _write_only(op, slot):
                continue
            if op.results[slot].uses:
                final = _recompute_after_loop(op, slot, rewriter)
                if final is None:
                    continue
                rewriter.replace_all_uses_with(op.results[slot], final)
            _drop_slot(op, slot, rewriter)
            return


def _aligned(op: scf.WhileOp) -> bool:
    """Each slot is a before argument, a condition operand, an after argument
    and a result, in the same place (the form the importers build)."""
    before, after = op.before_region.blocks, op.after_region.blocks
    if len(before) != 1 or len(after) != 1:
        return False
    condition = before.first.last_op
    count = len(op.results)
    return (
        isinstance(condition, scf.ConditionOp)
        and len(before.first.args) == len(after.first.args) == count
        and len(condition.args) == count
    )


def _write_only(op: scf.WhileOp, slot: int) -> bool:
    """The before argument is only passed on by the condition, in its own place,
    and the after argument is unused."""
    before_arg = op.before_region.block.args[slot]
    condition = op.before_region.block.last_op
    passed_on = all(
        use.operation is condition and use.index == slot + 1 for use in before_arg.uses
    )
    return passed_on and not op.after_region.block.args[slot].uses


def _recompute_after_loop(
    op: scf.WhileOp, slot: int, rewriter: PatternRewriter
) -> SSAValue | None:
    """The slot's final value built after the loop from another slot's result,
    or None when it is not such a function."""
    found = _function_of_other_slot(op, slot)
    if found is None:
        return None
    source, chain = found
    if not _same_at_entry(op, slot, source, chain):
        return None
    mapping: dict[SSAValue, SSAValue] = {
        op.after_region.block.last_op.operands[source]: op.results[source]
    }
    if not chain:
        return op.results[source]
    clones = [chained.clone(value_mapper=mapping) for chained in chain]
    rewriter.insert(clones, InsertPoint.after(op))
    return clones[-1].results[0]


def _function_of_other_slot(
    op: scf.WhileOp, slot: int
) -> tuple[int, list[Operation]] | None:
    """(k, ops) such that the slot yields ops applied to what slot k yields; slot
    k passes through the condition unchanged; every other operand of the ops is
    defined outside the loop."""
    body = op.after_region.block
    condition = op.before_region.block.last_op
    yielded = list(body.last_op.operands)
    value, chain = yielded[slot], []
    while len(chain) <= MAX_CHAIN:
        sources = [k for k, v in enumerate(yielded) if v is value and k != slot]
        for k in sources:
            if condition.args[k] is op.before_region.block.args[k]:
                return k, chain[::-1]
        producer = value.owner
        if not (
            isinstance(producer, NNOperation)
            and producer.parent_block() is body
            and len(producer.results) == 1
            and is_pure(producer)
            and all(_outside(op, v) for v in producer.operands[1:])
        ):
            return None
        chain.append(producer)
        value = producer.operands[0]
    return None


def _outside(op: scf.WhileOp, value: SSAValue) -> bool:
    owner = value.owner
    parent = owner.parent_op() if isinstance(owner, Block) else owner
    return parent is not None and not op.is_ancestor(parent)


def _same_at_entry(
    op: scf.WhileOp, slot: int, source: int, chain: list[Operation]
) -> bool:
    """Whether the slot's initial value is the chain applied to the source's."""
    initial = computed_constant(op.operands[slot])
    value = computed_constant(op.operands[source])
    for chained in chain:
        if initial is None or value is None:
            return False
        rest = [computed_constant(v) for v in chained.operands[1:]]
        if any(r is None for r in rest):
            return False
        value = evaluate_op(chained, [value, *rest], 0)
    return (
        value is not None
        and value.shape == initial.shape
        and value.dtype == initial.dtype
        and np.array_equal(value, initial, equal_nan=True)
    )


def _drop_slot(op: scf.WhileOp, slot: int, rewriter: PatternRewriter) -> None:
    """Rebuild the loop without the slot (its result has no uses left)."""
    before, after = op.before_region.block, op.after_region.block
    condition, body_yield = before.last_op, after.last_op
    kept = [i for i in range(len(op.results)) if i != slot]
    rewriter.replace(
        condition,
        scf.ConditionOp(condition.condition, *[condition.args[i] for i in kept]),
    )
    rewriter.replace(body_yield, scf.YieldOp(*[body_yield.operands[i] for i in kept]))
    before.erase_arg(before.args[slot])
    after.erase_arg(after.args[slot])
    loop = scf.WhileOp(
        [op.operands[i] for i in kept],
        [op.results[i].type for i in kept],
        _moved(op.before_region),
        _moved(op.after_region),
    )
    rewriter.replace(op, loop, [*loop.results[:slot], None, *loop.results[slot:]])


def _moved(region: Region) -> Region:
    moved = Region()
    region.move_blocks(moved)
    return moved
