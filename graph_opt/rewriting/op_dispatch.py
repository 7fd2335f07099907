"""Applying a list of patterns to an op through only those that can match its type."""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import UnionType
from typing import Union, get_args, get_origin

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
)
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from graph_opt.rewriting.erasure import erase_op, has_unused_results
from graph_opt.rewriting.placement import PlacementKeeper, has_placement
from graph_opt.rewriting.value_forwarding import tracking_calls
from graph_opt.statistics import count_rewrite
from graph_opt.xdsl_compat.rewriter import (
    FastWalker,
    block_ops,
    block_ops_reversed,
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


Rewrite = Callable[[Operation, PatternRewriter], None]


def checked_rewrite(pattern: RewritePattern) -> Rewrite:
    """`pattern.match_and_rewrite` for ops of the classes `matched_op_types`
    gives: an `@op_type_rewrite_pattern` method without the decorator's
    isinstance check (the decorator keeps the method as the closure variable
    `func`), which dispatch by class has already made."""
    method = type(pattern).match_and_rewrite
    found = inspect.getclosurevars(method).nonlocals
    func = found.get("func")
    if found.get("expected_type") is None or not inspect.isfunction(func):
        return pattern.match_and_rewrite
    return func.__get__(pattern, type(pattern))


class ClassFilteredPattern(RewritePattern, ABC):
    """A pattern without an op-type annotation that can still tell, from an op's
    class alone, that it would decline every op of it."""

    @abstractmethod
    def accepts_class(self, op_class: type[Operation]) -> bool: ...


def accepts(
    pattern: RewritePattern,
    types: tuple[type[Operation], ...] | None,
    op_class: type[Operation],
) -> bool:
    if types is not None and not issubclass(op_class, types):
        return False
    return not isinstance(pattern, ClassFilteredPattern) or pattern.accepts_class(
        op_class
    )


class EraseDeadOps:
    """What the statistics call the erasure of trivially dead ops."""


DEAD_CODE = EraseDeadOps()


@dataclass(eq=False, repr=False)
class OpTypeDispatch(RewritePattern):
    """Erase a trivially dead op; else try, in order, the patterns whose op types
    include the op's class, until one rewrites.

    Same result as xDSL's GreedyRewritePatternApplier over the patterns (the
    others decline at their type check), with one dict lookup per op instead of
    a check per pattern.
    """

    patterns: Sequence[RewritePattern]
    accepted: list[tuple[RewritePattern, tuple[type[Operation], ...] | None]] = field(
        init=False
    )
    by_class: dict[type[Operation], tuple[RewritePattern, ...]] = field(
        init=False, default_factory=dict
    )
    rewrites_by_class: dict[
        type[Operation], tuple[tuple[RewritePattern, Rewrite], ...]
    ] = field(init=False, default_factory=dict)
    """The patterns for a class with their `checked_rewrite`s."""
    pattern_rewrites: int = field(init=False, default=0)
    """Rewrites the patterns made (dead-op erasures not counted)."""
    keeper: PlacementKeeper = field(init=False, default_factory=PlacementKeeper)
    """Carries device and control inputs through each rewrite (its walker's listener)."""

    def __post_init__(self) -> None:
        self.accepted = [(p, matched_op_types(p)) for p in self.patterns]

    def patterns_for(self, op_class: type[Operation]) -> tuple[RewritePattern, ...]:
        found = self.by_class.get(op_class)
        if found is None:
            found = tuple(
                pattern
                for pattern, types in self.accepted
                if accepts(pattern, types, op_class)
            )
            self.by_class[op_class] = found
        return found

    def may_rewrite(self, op: Operation) -> bool:
        """Whether visiting `op` may change it: a pattern takes its class, or it may be dead."""
        return bool(self.patterns_for(type(op))) or has_unused_results(op)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if has_unused_results(op) and is_trivially_dead(op):
            erase_op(rewriter, op)
            count_rewrite(DEAD_CODE)
            self.keeper.clear()
            return
        rewrites = self.rewrites_by_class.get(type(op))
        if rewrites is None:
            rewrites = tuple(
                (pattern, checked_rewrite(pattern))
                for pattern in self.patterns_for(type(op))
            )
            self.rewrites_by_class[type(op)] = rewrites
        for pattern, rewrite in rewrites:
            rewrite(op, rewriter)
            if rewriter.has_done_action:
                self.keeper.end(op)
                count_rewrite(pattern)
                self.pattern_rewrites += 1
                return


@dataclass(eq=False, repr=False)
class DispatchingWalker(FastWalker):
    """A PatternRewriteWalker over an OpTypeDispatch whose sweeps queue only the
    ops it may rewrite (most constants it skips).

    Same fixed point: an op left out of a sweep would be visited for nothing,
    and the last sweep starts from the IR that it leaves unchanged.
    """

    pattern: OpTypeDispatch

    def __post_init__(self) -> None:
        self.listener.extend_from_listener(self.pattern.keeper.listener())

    def rewrite_module(self, module: ModuleOp) -> bool:
        ops = walk_ops(module.body, reverse=False, region_first=False)
        self.pattern.keeper.active = has_placement(ops)
        with tracking_calls(self, module):
            return super().rewrite_module(module)

    def region_ops(self, region: Region) -> Iterator[Operation]:
        # `self.pattern.may_rewrite`, inline: a sweep asks it of every op
        by_class, patterns_for = self.pattern.by_class, self.pattern.patterns_for
        # pushed in reverse, as the worklist is a stack
        for sub_op in walk_ops(
            region, not self.walk_reverse, not self.walk_regions_first
        ):
            found = by_class.get(type(sub_op))
            if found is None:
                found = patterns_for(type(sub_op))
            if found or has_unused_results(sub_op):
                yield sub_op


def walk_ops(region: Region, reverse: bool, region_first: bool) -> Iterator[Operation]:
    """The ops nested in `region` in the order of `region.walk(reverse=...,
    region_first=...)`, from a stack rather than a generator per region op (a
    chain of nested generators costs each op the depth of its nesting)."""
    stack: list[tuple[Iterator[Operation], Operation | None]] = [
        (_ops_of([region], reverse), None)
    ]
    while stack:
        ops, owner = stack[-1]
        for op in ops:
            if not op.regions:
                yield op
                continue
            if not region_first:
                yield op
            stack.append((_ops_of(op.regions, reverse), op))
            break
        else:
            stack.pop()
            if region_first and owner is not None:
                yield owner


def _ops_of(regions: Sequence[Region], reverse: bool) -> Iterator[Operation]:
    """The ops of the regions' blocks (not nested ones), in walk order."""
    ops = block_ops_reversed if reverse else block_ops
    for region in reversed(regions) if reverse else regions:
        for block in reversed(region.blocks) if reverse else region.blocks:
            yield from ops(block)


def rewrite_with(
    module: ModuleOp, patterns: Sequence[RewritePattern]
) -> tuple[bool, int]:
    """Apply `patterns` greedily (trivially dead ops erased on the way): whether
    the module changed, and how many rewrites the patterns themselves made (a
    pass that only erased dead ops has not done its own work)."""
    walker = dispatching_walker(patterns)
    changed = walker.rewrite_module(module)
    return changed, walker.pattern.pattern_rewrites


def dispatching_walker(
    patterns: Sequence[RewritePattern], *, walk_reverse: bool = False
) -> DispatchingWalker:
    """A greedy walker (trivially dead ops erased first) over `patterns`, dispatched by op type."""
    return DispatchingWalker(OpTypeDispatch(patterns), walk_reverse=walk_reverse)
