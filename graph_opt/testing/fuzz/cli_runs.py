"""Malformed inputs through the `graph-opt` command line, in a child process
with a time limit and an address-space limit, judged on what the user sees:
one line and a non-zero exit, no traceback, no partial output file, no exit 0
on a model the runtime (onnxruntime, TensorFlow) refuses, bounded time and peak memory."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from graph_opt.testing.fuzz.mutations import Malformed

TIME_LIMIT = 30.0
RSS_LIMIT = 1 << 30
"""Peak resident memory a run may reach."""
ADDRESS_LIMIT = 8 << 30
"""RLIMIT_AS of the child: a runaway allocation fails instead of taking the
machine (numpy and onnx reserve far more address space than they touch)."""


@dataclass(frozen=True)
class Run:
    returncode: int
    stderr: str
    seconds: float
    peak_rss: int
    output_written: bool


def run_graph_opt(input_path: Path, args: list[str], output: Path) -> Run:
    """`python -m graph_opt INPUT ARGS -o OUTPUT` with the limits, from this checkout."""
    command = [
        sys.executable,
        "-m",
        "graph_opt",
        str(input_path),
        *args,
        "-o",
        str(output),
    ]
    return run_limited(command, output)


def checkout_env(first: dict[str, str] | None = None) -> dict[str, str]:
    """The environment with this checkout first on PYTHONPATH (`first`: variables
    placed before all others)."""
    root = str(Path(__file__).resolve().parents[3])
    paths = [root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**(first or {}), **os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    env.update(first or {})
    return env


def run_limited(
    command: list[str],
    output: Path,
    env: dict[str, str] | None = None,
    time_limit: float = TIME_LIMIT,
    rss_limit: int | None = None,
    **popen,
) -> Run:
    """Run `command`, killed after `time_limit` seconds or once its resident
    memory passes `rss_limit` (checked every 20 ms); `popen`: cwd, stdin."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=err, env=env or checkout_env(),
            preexec_fn=_limit_address_space, **popen,
        )  # fmt: skip
        done = threading.Event()
        peak = [0]
        watch = threading.Thread(
            target=_watch, args=(process, done, time_limit, rss_limit, peak, command)
        )
        watch.start()
        _, status, _ = os.wait4(process.pid, 0)
        done.set()
        watch.join()
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here
        seconds = time.perf_counter() - start
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    return Run(process.returncode, stderr, seconds, peak[0], output.exists())


def _watch(
    process,
    done: threading.Event,
    time_limit: float,
    rss_limit,
    peak: list[int],
    command: list[str],
) -> None:
    """Kill the child past its limits; `peak[0]`: the highest of its own
    high-water marks seen once it runs `command` (`VmHWM`, every 20 ms). The
    kernel's `ru_maxrss` of a child would also count the pages of the parent it
    was forked from (the mark survives `exec`): a test suite grown to 500 MiB
    charged every child that."""
    deadline = time.monotonic() + time_limit
    own_command = "\0".join(map(str, command)).encode() + b"\0"
    while not done.wait(0.02):
        if _command_line(process.pid) == own_command:  # exec'd: its own pages
            peak[0] = max(peak[0], _high_water_mark(process.pid))
        if time.monotonic() > deadline or (
            rss_limit is not None and _rss(process.pid) > rss_limit
        ):
            process.kill()
            return


def _command_line(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _high_water_mark(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            return int(f.read().split("VmHWM:")[1].split()[0]) * 1024
    except (OSError, IndexError, ValueError):
        return 0


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize()
    except (OSError, IndexError, ValueError):
        return 0


def _limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))


def problems(
    run: Run,
    runtime_refuses: bool,
    time_limit: float = TIME_LIMIT,
    rss_limit: int = RSS_LIMIT,
) -> list[str]:
    """What is wrong with how graph-opt handled a malformed input."""
    found = []
    if run.seconds >= time_limit:
        found.append(f"took {run.seconds:.0f} s (limit {time_limit:.0f} s)")
    if run.peak_rss > rss_limit:
        found.append(
            f"peak memory {-(-run.peak_rss >> 20)} MiB (limit {rss_limit >> 20} MiB)"
        )
    if run.returncode < 0:
        found.append(f"killed by signal {-run.returncode}")
    if "Traceback" in run.stderr:
        found.append("traceback: " + run.stderr.strip().splitlines()[-1][:200])
    if run.returncode == 0:
        if runtime_refuses:
            found.append("exit 0 on a model the runtime refuses")
        return found
    if run.returncode < 0:
        return found
    errors = [
        line for line in run.stderr.splitlines()
        if line.strip() and ": warning:" not in line
    ]  # fmt: skip
    if len(errors) != 1:
        found.append(f"{len(errors)} error lines: {' | '.join(errors)[:300]}")
    if run.output_written:
        found.append("failed run left an output file")
    return found


def _onnxruntime_verdict(data: bytes) -> str:
    """ "ok", "refused: ..." or "no kernel: ..." (valid ONNX its CPU provider lacks)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime's errors are all one type per binding
        text = " ".join(str(e).split())[:300]
        kind = "no kernel" if "NOT_IMPLEMENTED" in text else "refused"
        return f"{kind}: {text}"
    return "ok"


class OnnxRuntimeOracle:
    """onnxruntime's verdict on a model, from worker processes (a malformed model
    may crash one); a crashed pool is replaced and the model counted refused."""

    def __init__(self, workers: int = 1):
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None
        self.lock = threading.Lock()

    def verdict(self, data: bytes) -> str:
        with self.lock:
            if self.pool is None:
                context = get_context("spawn")
                self.pool = ProcessPoolExecutor(self.workers, mp_context=context)
            pool = self.pool
        try:
            return pool.submit(_onnxruntime_verdict, data).result(timeout=120)
        except (BrokenProcessPool, TimeoutError) as e:
            with self.lock:
                if self.pool is pool:
                    self.close()
            return f"refused: onnxruntime crashed ({type(e).__name__})"

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None


def check_malformed(
    malformed: Malformed, work: Path, oracle: OnnxRuntimeOracle
) -> tuple[list[str], Run, str]:
    """Run `graph-opt INPUT -p optimize -t onnx -o OUT` on one malformed input:
    the problems found, the run, and onnxruntime's verdict on the input (ONNX)."""
    path = work / f"input{malformed.suffix}"
    path.write_bytes(malformed.data)
    output = work / "out.onnx"
    output.unlink(missing_ok=True)
    verdict = oracle.verdict(malformed.data) if malformed.suffix == ".onnx" else ""
    run = run_graph_opt(path, ["-p", "optimize", "-t", "onnx"], output)
    refused = verdict.startswith("refused") or malformed.refused_by_tensorflow
    found = problems(run, refused)
    if run.returncode == 0 and verdict == "ok" and not found:
        exported = oracle.verdict(output.read_bytes())
        if exported.startswith("refused"):
            found.append(
                f"the export of a model onnxruntime loads is refused: {exported}"
            )
    return found, run, verdict
