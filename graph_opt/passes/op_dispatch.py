"""Applying a list of patterns to an op through only those that can match its type."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import UnionType
from typing import Union, get_args, get_origin

from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
)


def matched_op_types(pattern: RewritePattern) -> tuple[type[Operation], ...] | None:
    """The op classes an `@op_type_rewrite_pattern` method accepts, or None for any op.

    The decorator keeps the annotation it checks as the closure variable
    `expected_type`; a pattern without it is tried on every op.
    """
    method = type(pattern).match_and_rewrite
    expected = inspect.getclosurevars(method).nonlocals.get("expected_type")
    if expected is None:
        return None
    if get_origin(expected) in (Union, UnionType):
        return get_args(expected)
    return (expected,)


@dataclass(eq=False, repr=False)
class OpTypeDispatch(RewritePattern):
    """Try, in order, the patterns whose op types include the op's class, until one rewrites.

    Same result as trying every pattern in order (the others decline at their
    type check), with one dict lookup per op instead of a check per pattern.
    """

    patterns: Sequence[RewritePattern]
    accepted: list[tuple[RewritePattern, tuple[type[Operation], ...] | None]] = field(
        init=False
    )
    by_class: dict[type[Operation], tuple[RewritePattern, ...]] = field(
        init=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        self.accepted = [(p, matched_op_types(p)) for p in self.patterns]

    def patterns_for(self, op_class: type[Operation]) -> tuple[RewritePattern, ...]:
        found = self.by_class.get(op_class)
        if found is None:
            found = tuple(
                pattern
                for pattern, types in self.accepted
                if types is None or issubclass(op_class, types)
            )
            self.by_class[op_class] = found
        return found

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        for pattern in self.patterns_for(type(op)):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


def dispatching_applier(patterns: Sequence[RewritePattern]) -> RewritePattern:
    """A greedy applier (trivially dead ops erased first) over `patterns`, dispatched by op type."""
    return GreedyRewritePatternApplier([OpTypeDispatch(patterns)])
