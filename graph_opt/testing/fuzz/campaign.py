"""A fuzzing campaign: random valid graphs (three ONNX for one GraphDef) through
every pipeline, then malformed inputs made from them through the command line.
Each failure is written with its reproducer to the findings folder."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from graph_opt.testing.fuzz import mutations
from graph_opt.testing.fuzz.cli_runs import OnnxRuntimeOracle, check_malformed
from graph_opt.testing.fuzz.differential import PIPELINES, check_graph_def, check_onnx
from graph_opt.testing.fuzz.onnx_graphs import random_inputs, random_model
from graph_opt.testing.fuzz.tf_graphs import random_graph_def


@dataclass
class Report:
    graphs: int = 0
    malformed: int = 0
    mismatches: int = 0
    crashes: int = 0
    """Exceptions on valid graphs, and malformed inputs handled badly."""
    accepted_invalid: int = 0
    """Malformed inputs the runtime refuses (onnxruntime, or TensorFlow for the
    GraphDef mutations that are invalid by construction) that graph-opt accepted."""
    findings: list[str] = field(default_factory=list)
    slowest: float = 0.0
    largest_rss: int = 0
    verdicts: Counter = field(default_factory=Counter)

    @property
    def passed(self) -> bool:
        return not (self.mismatches or self.crashes or self.accepted_invalid)

    def summary(self) -> str:
        status = "PASS" if self.passed else "FAIL"
        line = (
            f"fuzz[{status}]: {self.graphs} graphs, {self.mismatches} mismatches, "
            f"{self.crashes} crashes"
        )
        if self.malformed:
            line += (
                f"; {self.malformed} malformed inputs, {self.accepted_invalid} accepted "
                f"that the runtime refuses, slowest {self.slowest:.1f} s, "
                f"peak {self.largest_rss >> 20} MiB"
            )
        return line


def tf_input(graph, seed: int) -> np.ndarray:
    dims = [d.size for d in graph.node[0].attr["shape"].shape.dim]
    rng = np.random.default_rng(seed)
    return rng.standard_normal([2, *dims[1:]]).astype(np.float32)


def run_campaign(
    graphs: int,
    malformed: int,
    seed: int,
    findings: Path,
    pipelines=PIPELINES,
    log=print,
    jobs: int | None = None,
) -> Report:
    """`graphs` random graphs, then `malformed` inputs made from them, checked by
    `jobs` command-line runs at a time (default: one per CPU)."""
    report = Report()
    sources = []  # valid inputs for the mutation fuzzer
    for i in range(graphs):
        graph_seed = seed * 1_000_003 + i
        if i % 4 == 3:
            graph, outputs = random_graph_def(graph_seed)
            x = tf_input(graph, graph_seed)
            failures = check_graph_def(graph, outputs, x, pipelines)
            reproducer = {
                "graph.pb": graph.SerializeToString(),
                "outputs.json": json.dumps(outputs).encode(),
            }
            reproducer["x.npy"] = _npy(x)
            sources.append(("pb", graph))
        else:
            model = random_model(graph_seed)
            feeds = random_inputs(model, graph_seed)
            failures = check_onnx(model, feeds, pipelines)
            reproducer = {
                "model.onnx": model.SerializeToString(),
                "x.npy": _npy(feeds["x"]),
            }
            sources.append(("onnx", model))
        report.graphs += 1
        for failure in failures:
            if failure.kind == "mismatch":
                report.mismatches += 1
            else:
                report.crashes += 1
            text = f"graph seed {graph_seed}: {failure.kind} after '{failure.pipeline}': {failure.detail}"
            _record(report, findings, f"graph_{graph_seed}", text, reproducer, log)
        if (i + 1) % 50 == 0:
            log(
                f"  {i + 1} graphs, {report.mismatches} mismatches, {report.crashes} crashes"
            )
    if malformed:
        jobs = jobs or os.cpu_count() or 1
        _malformed_campaign(report, malformed, seed, sources, findings, log, jobs)
    return report


def _malformed_campaign(report, count, seed, sources, findings, log, jobs) -> None:
    rng = np.random.default_rng(seed)
    inputs = [
        _mutated(sources[int(rng.integers(len(sources)))], rng) for _ in range(count)
    ]
    oracle = OnnxRuntimeOracle(jobs)
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(jobs) as runner:

        def check(i: int):
            work = Path(tmp) / str(i)
            work.mkdir()
            return check_malformed(inputs[i], work, oracle)

        try:
            for i, (found, run, verdict) in enumerate(runner.map(check, range(count))):
                bad = inputs[i]
                report.malformed += 1
                report.slowest = max(report.slowest, run.seconds)
                report.largest_rss = max(report.largest_rss, run.peak_rss)
                report.verdicts[(bad.name, run.returncode == 0)] += 1
                for problem in found:
                    if problem.startswith("exit 0 on a model the runtime refuses"):
                        report.accepted_invalid += 1
                        problem += f" ({verdict})"
                    else:
                        report.crashes += 1
                    stderr = run.stderr.strip().splitlines()[-1:] or [""]
                    text = f"malformed {i} ({bad.name}): {problem}; stderr: {stderr[0][:200]}"
                    files = {f"input{bad.suffix}": bad.data}
                    _record(report, findings, f"malformed_{seed}_{i}", text, files, log)
                if (i + 1) % 50 == 0:
                    log(f"  {i + 1} malformed inputs, slowest {report.slowest:.1f} s")
        finally:
            oracle.close()


def _mutated(source, rng) -> mutations.Malformed:
    from graph_opt import api

    kind, valid = source
    if kind == "pb":
        return mutations.mutate_graph_def(valid, rng)
    if rng.random() < 0.15:
        return mutations.mutate_mlir(api.to_mlir(api.load(valid)), rng)
    return mutations.mutate_onnx(valid, rng)


def _record(report: Report, findings: Path, name: str, text: str, files, log) -> None:
    report.findings.append(text)
    log(f"  FINDING {text}")
    folder = findings / name
    folder.mkdir(parents=True, exist_ok=True)
    for file_name, data in files.items():
        (folder / file_name).write_bytes(data)
    with open(folder / "findings.txt", "a") as f:
        f.write(text + "\n")


def _npy(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def timed_campaign(*args, **kwargs) -> tuple[Report, float]:
    start = time.perf_counter()
    report = run_campaign(*args, **kwargs)
    return report, time.perf_counter() - start
