"""Erasing and replacing ops in rewrites, for less than `PatternRewriter.erase`.

xDSL erases an op's results by replacing their uses with ErasedSSAValues: it
builds one for every result, even one without uses, and copies the name hint
onto it through a regular expression. That is half the cost of an erase, and
graph rewrites mostly erase ops whose results are unused, where it does nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint


def has_unused_results(op: Operation) -> bool:
    """Whether no result of `op` is used (true without results): a cheap first
    test before `is_trivially_dead`."""
    for result in op.results:
        if result.first_use is not None:
            return False
    return True


def erase_op(rewriter: PatternRewriter, op: Operation) -> None:
    """`rewriter.erase(op)`, without its no-op step for results that are unused.
    The erased op loses its results, so that it is freed when its last reader
    lets go, not by a cyclic collection (which graph-wide passes pause)."""
    block = op.parent
    if op.regions or block is None or not has_unused_results(op):
        rewriter.erase(op)
        return
    rewriter.has_done_action = True
    rewriter.handle_operation_removal(op)
    block.detach_op(op)
    op.drop_all_references()
    op.results = ()  # each refers to the other


def replace_by_values(
    rewriter: PatternRewriter, op: Operation, values: Sequence[SSAValue]
) -> None:
    """`rewriter.replace(op, [], values)`: the users of `op`'s results read `values`
    (which take the results' name hints where they have none), and `op` is erased."""
    rewriter.handle_operation_replacement(op, values)
    for result, value in zip(op.results, values, strict=True):
        rewriter.replace_all_uses_with(result, value)
    erase_op(rewriter, op)


def replace_op(rewriter: PatternRewriter, op: Operation, new_op: Operation) -> None:
    """`rewriter.replace(op, new_op)`: `new_op` inserted before `op`, whose results
    it replaces."""
    rewriter.insert(new_op, InsertPoint.before(op))
    replace_by_values(rewriter, op, new_op.results)
