"""Running a host module's partitions from the files partition-pattern{emit-dir} wrote."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from graph_opt.interpreter.runner import External, run_function
from graph_opt.patterns.offload import EXTERNAL_ATTR


def partition_runners(
    host: ModuleOp, directory: str, load: Callable[[str], ModuleOp]
) -> dict[str, External]:
    """A runner for each declaration of `host` that names a file
    (`nn.external`), by function name: the file in `directory`, read by
    `load` (graph-opt's frontends), run by the reference interpreter.
    ValueError (one line) for a missing file."""
    runners = {}
    for op in host.ops:
        if not isinstance(op, func.FuncOp) or EXTERNAL_ATTR not in op.attributes:
            continue
        path = Path(directory) / op.attributes[EXTERNAL_ATTR].data  # type: ignore[attr-defined]
        if not path.is_file():
            raise ValueError(f"@{op.sym_name.data}: no partition file {path}")
        runners[op.sym_name.data] = _runner(load(str(path)))
    return runners


def _runner(partition: ModuleOp) -> External:
    return lambda *args: run_function(partition, list(args))
