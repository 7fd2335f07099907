"""What the tests of the pass author's tools share: the broken passes and a
`graph-opt` process running this checkout."""

import subprocess
import sys
from pathlib import Path

BROKEN = Path(__file__).with_name("broken_passes.py")
ROOT = Path(__file__).resolve().parents[2]


def run_module(
    module: str, *args, cwd=None, pythonpath=()
) -> subprocess.CompletedProcess:
    """`python -m module args` on this checkout, with no traceback switch set."""
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={
            "PYTHONPATH": ":".join([str(ROOT), *map(str, pythonpath)]),
            "PATH": "/usr/bin:/bin",
        },
    )


def graph_opt(*args, cwd=None) -> subprocess.CompletedProcess:
    return run_module("graph_opt", *args, cwd=cwd)
