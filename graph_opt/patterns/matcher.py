"""Matching dataflow patterns against SSA values, with explanations of failures."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from xdsl.dialects import func
from xdsl.ir import Block, Operation, OpResult, SSAValue

from graph_opt.patterns.failure import Failure, describe
from graph_opt.patterns.pattern import SKIPPABLE_OPS, DFPattern, OpPattern

PRECHECK_DEPTH = 1
"""How many operands deep `match_value` checks op names before matching."""


@dataclass
class Match:
    """The values and ops a pattern matched, read through its sub-pattern objects.

    `paths` and `region` are computed when first read (match_all finds every
    overlapping match of a dominator over a long path in linear time): read
    them before changing the graph.
    """

    root: SSAValue | None
    """The value matched (None for a match of an op, e.g. a function)."""
    values: dict[DFPattern, SSAValue]
    ops: dict[DFPattern, Operation]
    covered: dict[Operation, None]
    """Ops bound by op patterns and skipped identities, in match order."""
    path_walks: dict[DFPattern, Callable[[], list[Operation]]]
    constants: dict[Operation, None]
    facts: dict[DFPattern, Any] = field(default_factory=dict)
    """What sub-patterns found beyond values (e.g. an is_product's scale)."""

    def __getitem__(self, pattern: DFPattern | str) -> SSAValue:
        """The value a sub-pattern matched, given as the object or its label."""
        return self.values[self._pattern(pattern)]

    def __contains__(self, pattern: DFPattern | str) -> bool:
        try:
            return self._pattern(pattern) in self.values
        except KeyError:
            return False

    def op(self, pattern: DFPattern | str) -> Operation:
        return self.ops[self._pattern(pattern)]

    def _pattern(self, key: DFPattern | str) -> DFPattern:
        if not isinstance(key, str):
            return key
        found = {p for p in self.values if p.label == key}
        if len(found) != 1:
            labels = sorted({p.label for p in self.values if p.label})
            how = (
                "labels two sub-patterns" if found else "labels no matched sub-pattern"
            )
            raise KeyError(f"{key!r} {how}; labels: {', '.join(labels) or 'none'}")
        return found.pop()

    @cached_property
    def paths(self) -> dict[DFPattern, list[Operation]]:
        """The ops on each dominator's paths."""
        return {pattern: walk() for pattern, walk in self.path_walks.items()}

    @cached_property
    def region(self) -> dict[Operation, None]:
        """Ops the match covers (op patterns, dominator paths, skipped identities)."""
        region = dict(self.covered)
        for ops in self.paths.values():
            region.update(dict.fromkeys(ops))
        return region

    def escaping_values(self) -> list[SSAValue]:
        """Results of covered ops, other than the root, used outside the match."""
        escaping = []
        region = self.region
        for op in region:
            for result in op.results:
                if result is self.root:
                    continue
                for use in result.uses:
                    if use.operation not in region:
                        escaping.append(result)
                        break
        return escaping


@dataclass(slots=True)
class Matcher:
    """One match attempt: bindings with an undo trail for alternatives and commutation."""

    skip_identity: bool = False
    memo: dict[DFPattern, dict] = field(default_factory=dict)
    """Per-pattern facts about values that hold apart from any match (dominance),
    shared by the attempts of one search of an unchanged graph."""
    explain: bool = True
    """Whether failures are recorded (`explain`); a search that only wants
    matches skips building them."""
    failure: Failure | None = None
    values: dict[DFPattern, SSAValue] = field(default_factory=dict)
    ops: dict[DFPattern, Operation] = field(default_factory=dict)
    op_owners: dict[Operation, DFPattern] = field(default_factory=dict)
    path_walks: dict[DFPattern, Callable[[], list[Operation]]] = field(
        default_factory=dict
    )
    covered: dict[Operation, None] = field(default_factory=dict)
    constants: dict[Operation, None] = field(default_factory=dict)
    facts: dict[DFPattern, Any] = field(default_factory=dict)
    final_checks: list[tuple[DFPattern, SSAValue, FinalCheck]] = field(
        default_factory=list
    )
    """Conditions on the whole match (uses inside it, shapes of other values)."""
    trail: list[tuple[Any, Any]] = field(default_factory=list)

    def match_value(
        self, pattern: DFPattern, value: SSAValue, skippable: bool = True
    ) -> bool:
        if skippable and self.skip_identity:
            value = self._skip_identities(pattern, value)
        values = self.values
        bound = values.get(pattern)
        if bound is not None:
            if bound is value:
                return True
            return self.fail(
                pattern, value, "the pattern is already bound to {}", bound
            )
        if not pattern.match_in(self, value):
            return False
        if pattern not in values:  # (as `_set`, inline: this is the hot path)
            values[pattern] = value
            self.trail.append((values, pattern))
        return True

    def _skip_identities(self, pattern: DFPattern, value: SSAValue) -> SSAValue:
        names = pattern.root_names
        if names is None:
            return value
        while (
            isinstance(value, OpResult)
            and value.op.name in SKIPPABLE_OPS
            and value.op.name not in names
        ):
            self._set(self.covered, value.op, None)
            value = value.op.operands[0]
        return value

    def matches_alone(self, pattern: DFPattern, value: SSAValue) -> bool:
        """Whether `pattern` matches `value` with fresh bindings (kept apart from this match)."""
        scratch = Matcher(self.skip_identity, self.memo, self.explain)
        if scratch.match_value(pattern, value, skippable=False):
            return True
        self.failure = scratch.failure
        return False

    def bind_op(self, pattern: OpPattern, op: Operation) -> bool:
        """Bind `op` to `pattern`, one to one: distinct op patterns bind distinct ops."""
        bound = self.ops.get(pattern)
        if bound is not None and bound is not op:
            return self.fail(
                pattern, op, "the pattern is already bound to another {}", bound.name
            )
        owner = self.op_owners.get(op)
        if owner is not None and owner is not pattern:
            return self.fail(pattern, op, "is already bound to {}", owner)
        trail = self.trail
        if bound is None:
            self.ops[pattern] = op
            trail.append((self.ops, pattern))
        if owner is None:
            self.op_owners[op] = pattern
            trail.append((self.op_owners, op))
        self._set(self.covered, op, None)
        return True

    def cover(self, op: Operation) -> None:
        """Count `op` in the match's region without binding it to a pattern."""
        self._set(self.covered, op, None)

    def record(self, pattern: DFPattern, fact: Any) -> None:
        """Keep what `pattern` found (readable as `match.facts[pattern]`)."""
        self._set(self.facts, pattern, fact)

    def bind_constant(self, op: Operation) -> None:
        self._set(self.constants, op, None)

    def bind_path(
        self, pattern: DFPattern, walk: Callable[[], list[Operation]]
    ) -> None:
        """Bind the ops of a dominator's paths, listed by `walk` when first read."""
        self._set(self.path_walks, pattern, walk)

    def require_uses_inside(self, pattern: DFPattern, value: SSAValue) -> None:
        self.check_when_complete(pattern, value, _uses_inside)

    def check_when_complete(
        self, pattern: DFPattern, value: SSAValue, check: FinalCheck
    ) -> None:
        """Check `check(match, value)` (a reason it fails, or None) on the finished match."""
        self.final_checks.append((pattern, value, check))
        self.trail.append((self.final_checks, None))

    def match_elsewhere(self, pattern: DFPattern, op: Operation) -> bool:
        """Match `pattern` on an op outside this match's graph (a called function):
        its values are readable from the match, its ops are not part of it."""
        scratch = Matcher(self.skip_identity, self.memo, self.explain)
        if not pattern.match_op(scratch, op) or scratch.finish(pattern, None) is None:
            self.failure = scratch.failure
            return False
        for sub_pattern, value in scratch.values.items():
            self._set(self.values, sub_pattern, value)
        return True

    def fail(self, pattern: DFPattern, subject, reason: str, *args: Any) -> bool:
        if self.explain:
            self.failure = Failure(pattern, subject, reason, args)
        return False

    def fail_because(
        self, pattern: DFPattern, subject, reason: str, *args: Any
    ) -> bool:
        """Fail, keeping the sub-pattern failure that caused it."""
        if not self.explain:
            return False
        causes = () if self.failure is None else (self.failure,)
        self.failure = Failure(pattern, subject, reason, args, causes)
        return False

    def fail_all(
        self, pattern: DFPattern, subject, reason: str, causes: list[Failure | None]
    ) -> bool:
        """Fail after trying several ways, each with its own failure."""
        if not self.explain:
            return False
        self.failure = Failure(
            pattern, subject, reason, (), tuple(c for c in causes if c)
        )
        return False

    def mark(self) -> int:
        return len(self.trail)

    def rollback(self, mark: int) -> None:
        trail = self.trail
        for _ in range(len(trail) - mark):
            table, key = trail.pop()
            if isinstance(table, list):
                table.pop()
            else:
                del table[key]

    def _set(self, table: dict, key: Any, value: Any) -> None:
        if key not in table:
            table[key] = value
            self.trail.append((table, key))

    def finish(self, root_pattern: DFPattern, root: SSAValue | None) -> Match | None:
        match = Match(
            root,
            self.values,
            self.ops,
            self.covered,
            self.path_walks,
            self.constants,
            self.facts,
        )
        for pattern, value, check in self.final_checks:
            reason = check(match, value)
            if reason is not None:
                self.fail(pattern, value, "{}", reason)
                subject = value if root is None else root
                self.fail_because(
                    root_pattern, subject, "a condition on the match fails"
                )
                return None
        return match


FinalCheck = Callable[[Match, SSAValue], "str | None"]


def _uses_inside(match: Match, value: SSAValue) -> str | None:
    for use in value.uses:
        if use.operation not in match.region:
            return f"is also used by {use.operation.name} outside the match"
    return None


def match_value(
    pattern: DFPattern,
    value: SSAValue,
    *,
    skip_identity: bool = False,
    memo: dict[DFPattern, dict] | None = None,
) -> Match | None:
    """The match of `pattern` rooted at `value`, or None.

    Attempts that share `memo` (one search of a graph that does not change
    meanwhile) share what they learn about values, e.g. which op dominates them.
    A value that fails the pattern's cheap checks (`DFPattern.may_match`) is
    declined before any bindings are made.
    """
    # skipped identities may stand between an op and its operands' patterns
    depth = 0 if skip_identity else PRECHECK_DEPTH
    if not pattern.may_match(value, depth):
        return None
    return _attempt(pattern, value, skip_identity, memo, explain=False)[0]


def _attempt(
    pattern: DFPattern,
    value: SSAValue,
    skip_identity: bool,
    memo: dict[DFPattern, dict] | None = None,
    explain: bool = True,
) -> tuple[Match | None, Failure | None]:
    matcher = Matcher(skip_identity, {} if memo is None else memo, explain)
    if not matcher.match_value(pattern, value, skippable=False):
        return None, matcher.failure
    found = matcher.finish(pattern, value)
    return found, matcher.failure


def match_operation(pattern: DFPattern, op: Operation) -> Match | None:
    """The match of a pattern of an op itself (a FunctionPattern on a func.func)."""
    matcher = Matcher()
    if not pattern.match_op(matcher, op):
        return None
    return matcher.finish(pattern, None)


def match_op(
    pattern: DFPattern,
    op: Operation,
    *,
    skip_identity: bool = False,
    memo: dict[DFPattern, dict] | None = None,
) -> Match | None:
    """The first match of `pattern` rooted at a result of `op` (at a function
    itself for a pattern of functions), or None."""
    names = pattern.root_names
    if names is not None and op.name not in names:
        return None
    if names is not None and isinstance(op, func.FuncOp):
        return match_operation(pattern, op)
    for result in op.results:
        found = match_value(pattern, result, skip_identity=skip_identity, memo=memo)
        if found is not None:
            return found
    return None


def match_all(
    pattern: DFPattern, root: Operation | Block, *, skip_identity: bool = False
) -> list[Match]:
    """Every match rooted at an op nested in `root`, in program order (may overlap)."""
    memo: dict[DFPattern, dict] = {}
    found = (
        match_op(pattern, op, skip_identity=skip_identity, memo=memo)
        for op in root.walk()
    )
    return [m for m in found if m is not None]


def explain(pattern: DFPattern, op: Operation, *, skip_identity: bool = False) -> str:
    """Why `pattern` does (not) match at `op`: the failing sub-pattern and its reason, per result."""
    if not op.results:
        return f"{op.name} has no results to match"
    lines = []
    for result in op.results:
        found, failure = _attempt(pattern, result, skip_identity)
        if found is not None:
            return f"{describe(result)} matches {pattern}"
        lines.append(f"{describe(result)} does not match:")
        if failure is not None:
            lines.extend(failure.lines(1))
    return "\n".join(lines)
