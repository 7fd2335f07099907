"""Wall time and peak resident memory of a Python child process.

The peak is the child's own `VmHWM` (/proc/self/status), written at its exit:
the kernel's `ru_maxrss` of a child also counts the pages of the parent it was
forked from (the high-water mark survives `exec`), which would charge each
command with the benchmark's own memory."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPORTING_CHILD = """
import atexit, runpy, sys
report, kind, target, *args = sys.argv[1:]
def write_peak():
    status = open("/proc/self/status").read().split("VmHWM:")[1]
    open(report, "w").write(status.split()[0])
atexit.register(write_peak)
sys.argv = [target, *args]
if kind == "-m":
    runpy.run_module(target, run_name="__main__", alter_sys=True)
elif kind == "-c":
    exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
else:
    runpy.run_path(target, run_name="__main__")
"""


def own_peak_mb() -> float:
    """This process's own peak resident memory (VmHWM), in MB."""
    status = Path("/proc/self/status").read_text().split("VmHWM:")[1]
    return int(status.split()[0]) / 1024


class ChildFailed(RuntimeError):
    """The child exited non-zero; the message is the last line it printed."""


def graph_opt(*args: str) -> list[str]:
    """A graph-opt command line for `run_measured` (this interpreter, so
    PYTHONPATH selects the checkout)."""
    return ["-m", "graph_opt", *args]


def python_code(code: str, *args: str) -> list[str]:
    """`python -c code args` for `run_measured`."""
    return ["-c", code, *args]


def python_script(path: str, *args: str) -> list[str]:
    """`python path args` for `run_measured`."""
    return ["script", path, *args]


def run_measured(
    command: Sequence[str], timeout: float | None = None
) -> tuple[float, float, str]:
    """Run `python <command>` (made by `graph_opt`, `python_code` or
    `python_script`): its wall
    seconds, peak RSS in MB and stdout. Raises ChildFailed or
    subprocess.TimeoutExpired."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "peak"
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", REPORTING_CHILD, str(report), *command],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
            raise ChildFailed(lines[-1][:200])
        peak_kb = int(report.read_text())
    return seconds, peak_kb / 1024, done.stdout
