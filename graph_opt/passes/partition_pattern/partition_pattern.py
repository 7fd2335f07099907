"""partition-pattern: outline every match of a registered pattern into a private function."""

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, record


@dataclass(frozen=True)
class PartitionPatternPass(ModulePass):
    """Outline each match of a named pattern into a private func.func, called in its place.

    Partitions carry `composite = "<pattern>"` and TVM's `PartitionedFromPattern`;
    they never overlap and are not searched again (running the pass twice
    changes nothing). A match whose inner values are used elsewhere stays in
    place (`escaping=skip`), or is outlined with those inner ops kept for
    their other users, computed twice (`escaping=duplicate`, TVM's way).
    Patterns come from graph-opt's table, `--load-patterns` and the
    `graph_opt.patterns` entry points.

    With `emit-dir`, the partitions go to another compiler (TVM's "bring your
    own codegen"): each is written alone as `DIR/<name>.mlir` or `.onnx`
    (`format`) and stays in the host only as a declaration,
    `func.func private @<name>(...)` with `nn.external = "<name>.<format>"`,
    which the host's `func.call @<name>` names. `graph-opt-run host.mlir
    --partitions DIR` runs the host with them (from Python:
    `run_function(..., externals=...)`); `graph_opt.patterns.offload` hands
    them to a Python callback instead.
    """

    name = "partition-pattern"

    statistics: ClassVar[Statistics] = {
        "partitions outlined": "Matches outlined into functions of their own",
        "partitions written": "Outlined functions written as model files (emit-dir)",
    }

    pattern: str = field(
        metadata={
            "help": "a registered pattern name (graph-opt --list-passes lists them)"
        }
    )
    embed_constants: bool = field(
        default=False,
        metadata={
            "help": "copy constants into the outlined function (TVM) instead of passing them"
        },
    )
    escaping: str = field(
        default="skip",
        metadata={
            "help": "a match with inner values used outside: skip it, or duplicate those ops"
        },
    )

    emit_dir: str = field(
        default="",
        metadata={
            "help": "write each partition to DIR/<name>.<format>, leaving a declaration the host calls"
        },
    )
    format: str = field(
        default="mlir",
        metadata={"help": "the format of the partition files: mlir or onnx"},
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from graph_opt.passes.partition_pattern.partition_files import (
            partition_writer,
            write_partition,
        )
        from graph_opt.patterns.offload import hand_over
        from graph_opt.patterns.partition import partition
        from graph_opt.patterns.registry import get_pattern

        try:
            writer = partition_writer(self.format) if self.emit_dir else None
            outlined = partition(
                op,
                get_pattern(self.pattern),
                {"composite": self.pattern},
                embed_constants=self.embed_constants,
                escaping=self.escaping,
            )
            if writer is not None:
                written = hand_over(
                    outlined,
                    lambda f: write_partition(f, self.emit_dir, self.format, writer),
                    str,
                )
                record("partitions written", len(written))
        except ValueError as error:
            raise PassFailedException(f"partition-pattern: {error}") from error
        record("partitions outlined", len(outlined))
        if not outlined:
            warn(f"partition-pattern: pattern '{self.pattern}' matched nothing")
