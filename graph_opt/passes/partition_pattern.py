"""partition-pattern: outline every match of a registered pattern into a private function."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from graph_opt.remarks import warn
from graph_opt.statistics import record


@dataclass(frozen=True)
class PartitionPatternPass(ModulePass):
    """Outline each match of a named pattern into a private func.func, called in its place.

    Partitions carry `composite = "<pattern>"` and TVM's `PartitionedFromPattern`;
    they never overlap, keep matches whose inner values are used elsewhere in
    place, and are not searched again (running the pass twice changes nothing).
    """

    name = "partition-pattern"

    pattern: str
    """A name from graph_opt.patterns.registry.PATTERNS."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from graph_opt.patterns.partition import partition
        from graph_opt.patterns.registry import get_pattern

        outlined = partition(op, get_pattern(self.pattern), {"composite": self.pattern})
        record("partitions outlined", len(outlined))
        if not outlined:
            warn(f"partition-pattern: pattern '{self.pattern}' matched nothing")
