"""Rewrites declared as a dataflow pattern plus a `rewrite(match, rewriter)` method."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
)

from graph_opt.patterns.builder import _target
from graph_opt.patterns.matcher import PRECHECK_DEPTH, Match, match_value
from graph_opt.patterns.pattern import DFPattern
from graph_opt.rewriting.erasure import erase_op, has_unused_results
from graph_opt.rewriting.op_dispatch import ClassFilteredPattern
from graph_opt.rewriting.placement import keeping_placement

REWRITES_PER_OP = 10
"""The default cap on rewrites, per op of the input: a rewrite loop is caught after
10 rewrites per op, as MLIR's greedy driver gives up after 10 sweeps of the IR,
while a large graph may still need one rewrite (or a few) per op."""

MIN_MAX_REWRITES = 1_000
"""The default cap on rewrites of a small graph."""


class RewriteLimitError(Exception):
    """Raised when greedy rewriting does not reach a fixed point within its cap."""


@dataclass
class RewriteStats:
    """Rewrite counts per pattern class, with an optional cap on their total."""

    max_rewrites: int | None = None
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def record(self, name: str) -> None:
        self.counts[name] += 1
        if self.max_rewrites is not None and self.total > self.max_rewrites:
            firing = ", ".join(f"{n} ({c}x)" for n, c in self.counts.most_common())
            raise RewriteLimitError(
                f"no fixed point after {self.max_rewrites} rewrites; patterns still firing: {firing}"
            )


class DFPatternRewrite(ClassFilteredPattern):
    """A rewrite of every match of `pattern`; plugs into xDSL's greedy walker as is.

    Subclasses set `pattern` (keeping sub-patterns as attributes to read the
    match) and implement `rewrite`, which builds new ops with
    `graph_opt.patterns.builder.nn` (or inserts them with the rewriter; both
    before the matched root op) and returns the value replacing the root, or
    None to decline. Matched ops left unused are then erased.
    Matches whose interior values have users outside the match are rejected
    unless `allow_escaping_interior` is set (then those ops are kept). With
    `rewrite_once` (TVM's), apply_rewrites sweeps the graph once for this
    rewrite: what it builds is not matched again (e.g. x -> relu(relu(x))).
    """

    pattern: DFPattern
    skip_identity: bool = False
    allow_escaping_interior: bool = False
    rewrite_once: bool = False
    defer_to_user: bool = False
    """Leave a match whose root's one user roots a larger match (one holding
    this root) for that user: a forward walk sees the inner op first, and an
    optional trailing op (`p.optional(...)`) should still be taken."""
    stats: RewriteStats | None = None
    _deferred: _KeptMatch | None = None
    """The larger match a deferral found, for the visit of its root."""

    def rewrite(self, match: Match, rewriter: PatternRewriter) -> SSAValue | None:
        raise NotImplementedError

    def accepts_class(self, op_class: type[Operation]) -> bool:
        """Whether an op of `op_class` can be the matched root (graph-opt's
        op-type dispatch tries the rewrite on those ops only)."""
        names = self.pattern.root_names
        return names is None or getattr(op_class, "name", None) in names

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        names = self.pattern.root_names
        if names is not None and op.name not in names:
            return
        for result in op.results:
            if self.defer_to_user:
                match = self._deferred_match(result)
                if match is None:
                    match = self._larger_match_above(result)
                    if match is not None:
                        self._deferred = _KeptMatch(match)
                        continue  # the visit of its root fuses more
                    match = self._match(result)
                elif match.root is not result:
                    continue  # held by a larger match, found before
            else:
                match = self._match(result)
            if match is None:
                continue
            # (reads the region, which erase_unused needs, before the rewrite changes the graph)
            if match.escaping_values() and not self.allow_escaping_interior:
                continue  # erasing the interior would break its outside users
            token = _target.set(rewriter)  # where nn.<op>(...) builds
            try:
                replacement = self.rewrite(match, rewriter)
            finally:
                _target.reset(token)
            if replacement is None:
                continue
            rewriter.replace_all_uses_with(result, replacement)
            erase_unused(match, op, rewriter)
            if self.stats is None:
                self.stats = RewriteStats()
            self.stats.record(type(self).__name__)
            return

    def _match(self, value: SSAValue) -> Match | None:
        return match_value(self.pattern, value, skip_identity=self.skip_identity)

    def _deferred_match(self, result: SSAValue) -> Match | None:
        """The larger match found at an earlier visit, if it holds `result`
        and the ops it covers are unchanged since."""
        kept = self._deferred
        if kept is None or not kept.holds(result):
            return None
        current = kept.is_current()
        if result is kept.match.root or not current:
            self._deferred = None  # used now, or out of date
        return kept.match if current else None

    def _larger_match_above(self, result: SSAValue) -> Match | None:
        """A match rooted at a user of `result` (or a user of that user, while
        each is the only user and may match) that holds `result`'s op; the
        farthest root first, so the walk matches a chain once, not at each op."""
        names, roots, value = self.pattern.root_names, [], result
        while value.has_one_use():
            user = value.first_use.operation  # type: ignore[union-attr]
            if names is not None and user.name not in names:
                break
            roots.extend(user.results)
            if len(user.results) != 1 or not self.pattern.may_match(
                user.results[0], PRECHECK_DEPTH
            ):
                break
            value = user.results[0]
        for root in reversed(roots):
            match = self._match(root)
            if match is None or result.owner not in match.region:
                continue
            if not match.escaping_values() or self.allow_escaping_interior:
                return match
        return None


class _KeptMatch:
    """A match kept for a later visit, with the operands of the ops it covers
    then (a rewrite in between that touches them makes it out of date)."""

    def __init__(self, match: Match):
        self.match = match
        self.operands = {op: tuple(op.operands) for op in match.region}

    def holds(self, value: SSAValue) -> bool:
        return value is self.match.root or value.owner in self.operands

    def is_current(self) -> bool:
        return all(
            op.parent is not None and tuple(op.operands) == operands
            for op, operands in self.operands.items()
        )


class _Redirect(DFPatternRewrite):
    def __init__(self, pattern: DFPattern, target: DFPattern | str):
        self.pattern, self.target = pattern, target

    def rewrite(self, match: Match, rewriter: PatternRewriter) -> SSAValue | None:
        if self.target not in match:
            return None  # an alternative without the target matched
        value = match[self.target]
        if value is match.root or not _visible_at(value, match.root.owner):  # type: ignore[union-attr]
            return None  # the root itself, or a value of another function (a callee's)
        return value


def redirect_to(pattern: DFPattern, target: DFPattern | str) -> DFPatternRewrite:
    """The rewrite that replaces each match of `pattern` by the value its
    sub-pattern `target` (or the label `target`) matched (TVM's callbacks
    returning `node_map[x][0]`), e.g. `redirect_to(relu(inner), inner)` drops a
    relu of a relu. Any pattern kind works; a match is left alone when the
    target is not part of it (the other side of `|`), is the root itself, or
    is not visible at the root (a value inside a called function)."""
    return _Redirect(pattern, target)


def _visible_at(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined in a block holding `op` (or holding an op that holds it)."""
    home = (
        value.block if isinstance(value, BlockArgument) else value.owner.parent_block()
    )  # type: ignore[union-attr]
    block = op.parent_block()
    while block is not None:
        if block is home:
            return True
        parent = block.parent_op()
        block = parent.parent_block() if parent is not None else None
    return False


def erase_unused(match: Match, root_op: Operation, rewriter: PatternRewriter) -> None:
    """Erase the match's ops and constants that no longer have uses, root first."""
    candidates = set(match.region) | set(match.constants)
    stack = [root_op]
    while stack:
        op = stack.pop()
        if op not in candidates or op.parent is None:
            continue
        if not has_unused_results(op):
            continue
        candidates.discard(op)
        producers = [v.op for v in op.operands if isinstance(v, OpResult)]
        erase_op(rewriter, op)
        stack.extend(producers)


def apply_rewrites(
    module: ModuleOp,
    rewrites: Sequence[RewritePattern],
    max_rewrites: int | Literal["scaled"] | None = "scaled",
) -> RewriteStats:
    """Apply the rewrites greedily to a fixed point; RewriteLimitError past `max_rewrites`.

    Rewrites with `rewrite_once` run first, in one sweep. The default cap scales with the graph: REWRITES_PER_OP per op of the module
    (at least MIN_MAX_REWRITES); None sets no cap. Ops are visited from the
    last one up, so a pattern sees its largest match (e.g. conv+bias+relu)
    before a smaller one rooted at an inner op.
    """
    if max_rewrites == "scaled":
        op_count = sum(1 for _ in module.walk())
        max_rewrites = max(MIN_MAX_REWRITES, REWRITES_PER_OP * op_count)
    stats = RewriteStats(max_rewrites)
    for rewrite in rewrites:
        if isinstance(rewrite, DFPatternRewrite):
            rewrite.stats = stats
    once = [r for r in rewrites if getattr(r, "rewrite_once", False)]
    repeated = [r for r in rewrites if not getattr(r, "rewrite_once", False)]
    for group, recursively in ((once, False), (repeated, True)):
        if group:
            keeping_placement(
                GreedyRewritePatternApplier(group),
                walk_reverse=True,
                apply_recursively=recursively,
            ).rewrite_module(module)
    return stats
