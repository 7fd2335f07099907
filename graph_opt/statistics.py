"""Pass statistics, as MLIR's `--mlir-pass-statistics`: for each pass run, the
rewrites each pattern made, the ops before and after by kind, and the counts
and warnings the pass itself reported.

Passes only report (`record`, and the pattern drivers' `count_rewrite`); both
cost nothing unless a collection is active (`collecting`), which `api.run(...,
statistics=[...])` and `graph-opt --pass-statistics` start around each pass.
"""

from __future__ import annotations

import time
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp

from graph_opt.remarks import GraphOptWarning


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

    def changed_ops(self) -> dict[str, tuple[int, int]]:
        """(before, after) for each op kind whose count changed."""
        kinds = sorted(set(self.ops_before) | set(self.ops_after))
        return {
            k: (self.ops_before[k], self.ops_after[k])
            for k in kinds
            if self.ops_before[k] != self.ops_after[k]
        }

    def table(self) -> str:
        """The statistics as MLIR prints them: a header, then aligned rows."""
        rows = [(f"{v}", k) for k, v in self.counters.items()]
        rows += [(f"{v}", f"rewrites by {k}") for k, v in sorted(self.rewrites.items())]
        rows += [
            (f"{before} -> {after}", f"'{kind}' ops")
            for kind, (before, after) in self.changed_ops().items()
        ]
        if not rows:
            rows = [("0", "changes")]
        width = max(len(value) for value, _ in rows)
        lines = [f"'{self.name}' ({self.seconds:.3f} s)"]
        lines += [f"  ({value.rjust(width)}) {label}" for value, label in rows]
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
        _active.counters[key] = value


def count(key: str, by: int = 1) -> None:
    """Add to a count the running pass reports (e.g. "relu fused into nn.fused_conv")."""
    if _active is not None:
        _active.counters[key] = _active.counters.get(key, 0) + by


def op_counts(module: ModuleOp) -> Counter[str]:
    return Counter(op.name for op in module.walk() if op is not module)


@contextmanager
def collecting(name: str, module: ModuleOp) -> Iterator[PassStatistics]:
    """Collect the statistics of the pass run inside; its warnings are kept and
    still said."""
    global _active
    stats = PassStatistics(name, op_counts(module))
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
