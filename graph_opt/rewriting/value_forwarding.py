"""Replacing an op by one of its operands (or another existing value)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
)

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.dialects.nn.shapes import more_precise
from graph_opt.rewriting.erasure import replace_by_values
from graph_opt.rewriting.placement import can_hand_over_control_inputs


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
    index = _call_index.get()
    if index is None or index.root is not module:
        index = CallIndex(module)
    return not index.is_called(function.sym_name.data)


class CallIndex:
    """How many func.call ops in `root` name each function: counted when first
    asked, then kept current from a rewriter's insertions and removals."""

    def __init__(self, root: Operation):
        self.root = root
        self._counts: Counter[str] | None = None

    def is_called(self, name: str) -> bool:
        if self._counts is None:
            self._counts = Counter(_callees(self.root))
        return self._counts[name] > 0

    def listener(self) -> PatternRewriterListener:
        return PatternRewriterListener(
            operation_insertion_handler=[self._inserted],
            operation_removal_handler=[self._removed],
        )

    def _inserted(self, op: Operation) -> None:
        if self._counts is not None:
            self._counts.update(_callees(op))

    def _removed(self, op: Operation) -> None:
        if self._counts is not None:
            self._counts.subtract(_callees(op))


_call_index: ContextVar[CallIndex | None] = ContextVar(
    "graph_opt_call_index", default=None
)


@contextmanager
def tracking_calls(walker: PatternRewriteWalker, module: ModuleOp) -> Iterator[None]:
    """While in the block, `can_forward` reads which functions of `module` are
    called from one index, kept current through `walker`'s rewrites (instead of
    walking the module for each forwarded value)."""
    index = CallIndex(module)
    listener = walker.listener
    walker.listener = PatternRewriterListener()
    walker.listener.extend_from_listener(listener)
    walker.listener.extend_from_listener(index.listener())
    token = _call_index.set(index)
    try:
        yield
    finally:
        _call_index.reset(token)
        walker.listener = listener


def _callees(op: Operation) -> Iterator[str]:
    """The callee of every func.call in `op` (itself included)."""
    if not op.regions:
        if isinstance(op, func.CallOp):
            yield op.callee.string_value()
        return
    for nested in op.walk():
        if isinstance(nested, func.CallOp):
            yield nested.callee.string_value()


def forward_operand(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> None:
    """Replace the single-result `op` by `value`, unless the types forbid it or
    the op waits on effects (`tf.control_inputs`) that a user cannot take over."""
    if can_forward(op.results[0], value) and can_hand_over_control_inputs(op):
        replace_by_values(rewriter, op, [value])
