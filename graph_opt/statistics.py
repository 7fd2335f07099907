"""Pass statistics, as MLIR's `--mlir-pass-statistics`: for each pass run, the
rewrites each pattern made, the ops before and after by kind, and the counts
and warnings the pass itself reported.

A pass declares its counts on its class, as MLIR's `Statistic numFolded{this,
"num-folded", "..."}`: `statistics: ClassVar[Statistics] = {"name":
"description"}`, a `{field}` in a name standing for a part filled in as it
runs (`"peak bytes in {where}"`). Passes only report (`record`, `count`, and
the pattern drivers' `count_rewrite`); all cost nothing unless a collection is
active (`collecting`), which `api.run(..., statistics=[...])` and `graph-opt
--pass-statistics` start around each pass. A count the pass did not declare
is still shown, and warned about once per run.
"""

from __future__ import annotations

import re
import time
import warnings
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache

from xdsl.dialects.builtin import ModuleOp

from graph_opt.remarks import GraphOptWarning

Statistics = Mapping[str, str]
"""A pass's statistics: name (a `{field}` is filled in as it runs) -> description."""

REPORT_HEADER = (
    "===" + "-" * 73 + "===\n"
    + " " * 25 + "... Pass statistics report ...\n"
    + "===" + "-" * 73 + "==="
)  # fmt: skip
"""What MLIR prints above the tables of `--mlir-pass-statistics`."""


def declared_statistics(pass_class: type) -> Statistics:
    """The statistics a pass class declares (none for xDSL's own passes)."""
    return getattr(pass_class, "statistics", {})


@cache
def _name_pattern(name: str) -> re.Pattern[str]:
    literal = re.split(r"\{[^{}]*\}", name)
    return re.compile(".+".join(re.escape(part) for part in literal))


def description(key: str, declared: Statistics) -> str | None:
    """The description of the declared statistic `key` is an instance of."""
    for name, text in declared.items():
        if _name_pattern(name).fullmatch(key):
            return text
    return None


@dataclass
class PassStatistics:
    """What one pass run did."""

    name: str
    ops_before: Counter[str]
    ops_after: Counter[str] = field(default_factory=Counter)
    rewrites: Counter[str] = field(default_factory=Counter)
    """Rewrites (and dead ops erased) by pattern class name."""
    counters: dict[str, int] = field(default_factory=dict)
    """What the pass reported, e.g. {"nn.batch_norm folded": 50, "nn.batch_norm left": 2}."""
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    declared: Statistics = field(default_factory=dict)
    """The pass's declaration (`declared_statistics`)."""
    descriptions: dict[str, str] = field(default_factory=dict)
    """The description of each count in `counters` that the pass declared."""
    undeclared: list[str] = field(default_factory=list)
    """The counts in `counters` that the pass did not declare."""

    def changed_ops(self) -> dict[str, tuple[int, int]]:
        """(before, after) for each op kind whose count changed."""
        kinds = sorted(set(self.ops_before) | set(self.ops_after))
        return {
            k: (self.ops_before[k], self.ops_after[k])
            for k in kinds
            if self.ops_before[k] != self.ops_after[k]
        }

    def _note(self, key: str) -> None:
        """Look up a count's description the first time it is reported."""
        if key in self.counters:
            return
        text = description(key, self.declared)
        if text is not None:
            self.descriptions[key] = text
            return
        self.undeclared.append(key)
        warnings.warn(
            f"{self.name}: statistic '{key}' is not declared on the pass",
            GraphOptWarning,
            stacklevel=3,
        )

    def table(self) -> str:
        """The statistics as MLIR prints them: the pass, then the counts as
        `(S) value name - description`, values and names aligned; then, with no
        description, each pattern's rewrites and the ops before -> after by kind."""
        counts = [
            (f"{v}", k, self.descriptions.get(k, "undeclared"))
            for k, v in self.counters.items()
        ]
        counts += [
            (f"{v}", f"rewrites by {k}", "") for k, v in sorted(self.rewrites.items())
        ]
        if not counts and not self.changed_ops():
            counts = [("0", "changes", "")]
        width = max((len(value) for value, _, _ in counts), default=0)
        name_width = max((len(name) for _, name, text in counts if text), default=0)
        lines = [f"'{self.name}' ({self.seconds:.3f} s)"]
        lines += [
            f"  (S) {value.rjust(width)} "
            + (f"{name.ljust(name_width)} - {text}" if text else name)
            for value, name, text in counts
        ]
        lines += [
            f"  (S) {before} -> {after} '{kind}' ops"
            for kind, (before, after) in self.changed_ops().items()
        ]
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)


_active: PassStatistics | None = None


def count_rewrite(pattern: object) -> None:
    """A pattern rewrote an op (pattern drivers call this)."""
    if _active is not None:
        _active.rewrites[type(pattern).__name__] += 1


def record(key: str, value: int) -> None:
    """A count the running pass reports (e.g. "batch norms folded")."""
    if _active is not None:
        _active._note(key)
        _active.counters[key] = value


def count(key: str, by: int = 1) -> None:
    """Add to a count the running pass reports (e.g. "relu fused into nn.fused_conv")."""
    if _active is not None:
        _active._note(key)
        _active.counters[key] = _active.counters.get(key, 0) + by


def op_counts(module: ModuleOp) -> Counter[str]:
    return Counter(op.name for op in module.walk() if op is not module)


@contextmanager
def collecting(
    name: str, module: ModuleOp, declared: Statistics | None = None
) -> Iterator[PassStatistics]:
    """Collect the statistics of the pass run inside, which declares `declared`;
    its warnings are kept and still said."""
    global _active
    stats = PassStatistics(name, op_counts(module), declared=declared or {})
    previous, _active = _active, stats
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", GraphOptWarning)
            yield stats
    finally:
        stats.seconds = time.perf_counter() - start
        _active = previous
        stats.ops_after = op_counts(module)
    for said in caught:
        if issubclass(said.category, GraphOptWarning):
            stats.warnings.append(str(said.message))
        warnings.showwarning(said.message, said.category, said.filename, said.lineno)
