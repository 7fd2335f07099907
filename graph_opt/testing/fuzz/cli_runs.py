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
    root = str(Path(__file__).resolve().parents[3])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
    }
    command = [
        sys.executable,
        "-m",
        "graph_opt",
        str(input_path),
        *args,
        "-o",
        str(output),
    ]
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=err, env=env,
            preexec_fn=_limit_address_space,
        )  # fmt: skip
        timer = threading.Timer(TIME_LIMIT, process.kill)
        timer.start()
        _, status, usage = os.wait4(process.pid, 0)
        timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here
        seconds = time.perf_counter() - start
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    return Run(
        process.returncode, stderr, seconds, usage.ru_maxrss * 1024, output.exists()
    )


def _limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))


def problems(run: Run, runtime_refuses: bool) -> list[str]:
    """What is wrong with how graph-opt handled a malformed input."""
    found = []
    if run.seconds >= TIME_LIMIT:
        found.append(f"took {run.seconds:.0f} s (limit {TIME_LIMIT:.0f} s)")
    if run.peak_rss > RSS_LIMIT:
        found.append(
            f"peak memory {run.peak_rss >> 20} MiB (limit {RSS_LIMIT >> 20} MiB)"
        )
    if run.returncode < 0:
        found.append(f"killed by signal {-run.returncode}")
    if "Traceback" in run.stderr:
        found.append("traceback: " + run.stderr.strip().splitlines()[-1][:200])
    if run.returncode == 0:
        if runtime_refuses:
            found.append("exit 0 on a model the runtime refuses")
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
