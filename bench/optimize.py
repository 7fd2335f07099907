"""graph-opt's `optimize` pipeline against onnxoptimizer, onnxsim, onnxslim and onnxruntime's offline optimizer.

Every tool goes ONNX file in, ONNX file out (load, optimize, save), each run
in its own subprocess with a timeout, timed after a warm-up run on a tiny
model. `graph-opt` is timed in-process (load, import, optimize, export, save),
`graph-opt-cli` as the whole `graph-opt m.onnx -p optimize -t onnx -o out.onnx`
process. For each output the table gives the node, BatchNormalization and
Identity counts and the max relative error against the original in
onnxruntime on the same seeded random inputs (max |out - ref| / max |ref|,
optimizations off); for the original and graph-opt's output of the zoo models,
the median onnxruntime inference latency.

Models: generated ResNet-50, MobileNetV2 and BERT-like encoder
(graph_opt.testing.model_zoo, seeded, no downloads) and deep Conv+BN+Relu
chains with Identity nodes at --sizes nodes.

With `--base REV` it compares graph-opt with itself instead: `fuse-ops` alone
and `optimize` on each model (`bert_base` too: 12 layers, hidden 768, sequence
128), the pass's own seconds after loading, this tree against revision REV
(unpacked by `git archive`, or a directory holding a checkout), each run in its own process, the two trees taking
turns (A, B, A, B) for --runs rounds; the table gives both medians and their
ratio. Times are CPU seconds of the process (time.process_time): the
pass runs on one thread, and CPU time is what other engineers' load on a
shared machine disturbs least.

Usage: python bench/optimize.py [--runs 3] [--models resnet50,mobilenet_v2,bert,chains]
       [--sizes 5000,20000,50000] [--tools graph-opt,graph-opt-cli,onnxoptimizer,onnxsim,onnxslim,ort]
       [--timeout 600] [--repeat-under 30] [--ort-level extended|basic]
       python bench/optimize.py --base ffce794 --runs 5 --models bert_base,resnet50,mobilenet_v2,bert
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.base_rev import REPO, checkout, interleaved  # noqa: E402
from bench.peak_rss import (  # noqa: E402 - after making the repository importable
    ChildFailed,
    graph_opt,
    python_script,
    run_measured,
)

TOOLS = ("graph-opt", "graph-opt-cli", "onnxoptimizer", "onnxsim", "onnxslim", "ort")
MODELS = ("resnet50", "mobilenet_v2", "bert", "chains")
OTHER_MODELS = ("bert_base",)
"""Models given by name only (not in the default list)."""
LATENCY_MODELS = ("resnet50", "mobilenet_v2", "bert")
"""Models whose onnxruntime latency is measured (a chain's session alone takes long)."""


def make_model(name: str) -> onnx.ModelProto:
    from graph_opt.testing import model_zoo

    if name.startswith("chain-"):
        return model_zoo.conv_chain(int(name.removeprefix("chain-")))
    return {
        "resnet50": model_zoo.resnet,
        "mobilenet_v2": model_zoo.mobilenet_v2,
        "bert": model_zoo.bert_encoder,
        "bert_base": lambda: model_zoo.bert_encoder(
            layers=12, hidden=768, heads=12, seq=128
        ),
    }[name]()


# --- workers: one tool, one run, in a fresh process; print the seconds taken ---


def run_graph_opt(src: str, dst: str) -> None:
    from xdsl.context import Context

    from graph_opt import api
    from graph_opt.passes.optimize import OptimizePass

    module = api.load(src)
    OptimizePass().apply(Context(), module)
    api.save(module, dst)


def run_onnxoptimizer(src: str, dst: str) -> None:
    import onnxoptimizer

    passes = onnxoptimizer.get_fuse_and_elimination_passes()
    onnx.save(onnxoptimizer.optimize(onnx.load(src), passes), dst)


def run_onnxsim(src: str, dst: str) -> None:
    import onnxsim

    model, _ = onnxsim.simplify(onnx.load(src), check_n=0)
    onnx.save(model, dst)


def run_onnxslim(src: str, dst: str) -> None:
    import onnxslim

    onnx.save(onnxslim.slim(onnx.load(src)), dst)


def run_ort(src: str, dst: str, level: str) -> None:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = {
        "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    }[level]
    options.optimized_model_filepath = dst
    ort.InferenceSession(src, options, providers=["CPUExecutionProvider"])


def worker(tool: str, src: str, dst: str, ort_level: str) -> None:
    """Time one load-optimize-save, after a warm-up run on a tiny model (imports, lazy loading)."""
    from graph_opt.testing.model_zoo import conv_chain

    runners = {
        "graph-opt": run_graph_opt,
        "onnxoptimizer": run_onnxoptimizer,
        "onnxsim": run_onnxsim,
        "onnxslim": run_onnxslim,
        "ort": lambda s, d: run_ort(s, d, ort_level),
    }
    action = runners[tool]
    tiny = str(Path(dst).with_suffix(".warmup.onnx"))
    onnx.save(conv_chain(20), tiny)
    action(tiny, tiny)
    start = time.perf_counter()
    action(src, dst)
    print(json.dumps({"seconds": time.perf_counter() - start}))


# --- the parent: run tools with timeouts, check outputs, print the table ---


@dataclass
class Outcome:
    seconds: list[float] = field(default_factory=list)
    peak_mb: list[float] = field(default_factory=list)
    timed_out: float | None = None
    error: str | None = None

    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None

    def median_peak(self) -> float | None:
        return statistics.median(self.peak_mb) if self.peak_mb else None


def one_run(tool: str, src: Path, dst: Path, args) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one run of `tool`; raises
    subprocess.TimeoutExpired or ChildFailed."""
    if tool == "graph-opt-cli":
        command = graph_opt(str(src), "-p", "optimize", "-t", "onnx", "-o", str(dst))
    else:
        command = python_script(__file__, "--worker", tool, str(src), str(dst))
        command += ["--ort-level", args.ort_level]
    elapsed, peak_mb, out = run_measured(command, timeout=args.timeout)
    if tool == "graph-opt-cli":
        return elapsed, peak_mb
    return json.loads(out.strip().splitlines()[-1])["seconds"], peak_mb


def time_tool(tool: str, src: Path, dst: Path, args) -> Outcome:
    """Median over --runs; a run longer than --repeat-under seconds is not repeated."""
    outcome = Outcome()
    for _ in range(args.runs):
        try:
            seconds, peak_mb = one_run(tool, src, dst, args)
        except subprocess.TimeoutExpired:
            outcome.timed_out = args.timeout
            return outcome
        except ChildFailed as error:
            outcome.error = str(error)
            return outcome
        outcome.seconds.append(seconds)
        outcome.peak_mb.append(peak_mb)
        if seconds > args.repeat_under:
            break
    return outcome


def random_inputs(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    initializers = {i.name for i in model.graph.initializer}
    inputs = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        shape = [d.dim_value if d.dim_value > 0 else 1 for d in tensor.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
        inputs[value.name] = rng.standard_normal(shape).astype(dtype)
    return inputs


def session(path: Path, optimized: bool):
    import onnxruntime as ort

    options = ort.SessionOptions()
    if not optimized:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def outputs(path: Path, inputs) -> list[np.ndarray]:
    return session(path, optimized=False).run(None, inputs)


def max_relative_error(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    worst = 0.0
    for g, w in zip(got, want):
        scale = max(float(np.max(np.abs(w))), np.finfo(np.float32).tiny)
        worst = max(worst, float(np.max(np.abs(g - w))) / scale)
    return worst


def latency_ms(
    path: Path, inputs, min_runs: int = 30, min_seconds: float = 1.0, warmup: int = 10
) -> float:
    """Median milliseconds of one inference, over at least `min_runs` runs and
    `min_seconds` (a model of 0.1 ms needs thousands of runs for a stable median)."""
    run = session(path, optimized=True)
    for _ in range(warmup):
        run.run(None, inputs)
    times = []
    deadline = time.perf_counter() + min_seconds
    while len(times) < min_runs or time.perf_counter() < deadline:
        start = time.perf_counter()
        run.run(None, inputs)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def counts(model: onnx.ModelProto) -> tuple[int, int, int]:
    ops = [node.op_type for node in model.graph.node]
    return len(ops), ops.count("BatchNormalization"), ops.count("Identity")


HEADER = (
    f"{'model':<13} {'tool':<14} {'time s':>8} {'x ours':>7} {'peak MB':>8}"
    f" {'nodes':>13} {'BN':>11} {'Identity':>11} {'max rel err':>11} {'ort ms':>8}"
)


def row(model, tool, time_text, ratio, peak, before, after, error, latency) -> str:
    nodes, bn, identity = (f"{b} -> {a}" for b, a in zip(before, after))
    return (
        f"{model:<13} {tool:<14} {time_text:>8} {ratio:>7} {peak:>8} {nodes:>13}"
        f" {bn:>11} {identity:>11} {error:>11} {latency:>8}"
    )


def bench_model(name: str, args, work: Path) -> Iterator[str]:
    model = make_model(name)
    src = work / f"{name}.onnx"
    onnx.save(model, src)
    before = counts(model)
    inputs = random_inputs(model)
    reference = outputs(src, inputs)
    with_latency = name in LATENCY_MODELS and not args.no_latency
    original_latency = f"{latency_ms(src, inputs):.2f}" if with_latency else "-"
    yield row(name, "original", "-", "-", "-", before, before, "-", original_latency)
    ours = None
    for tool in args.tools:
        dst = work / f"{name}.{tool}.onnx"
        outcome = time_tool(tool, src, dst, args)
        median = outcome.median()
        if tool == "graph-opt":
            ours = median
        if median is None:
            text = f">{outcome.timed_out:.0f}s" if outcome.timed_out else "failed"
            note = outcome.error or ""
            line = row(name, tool, text, "-", "-", before, ("?",) * 3, "-", "-")
            yield f"{line}  ({note})" if note else line
            continue
        ratio = f"{median / ours:.1f}" if ours and tool != "graph-opt" else "-"
        optimized = onnx.load(dst)
        error = f"{max_relative_error(outputs(dst, inputs), reference):.1e}"
        latency = "-"
        if tool == "graph-opt" and with_latency:
            latency = f"{latency_ms(dst, inputs):.2f}"
        time_text = f"{median:.3f}"
        if outcome.timed_out:
            time_text = f">{outcome.timed_out:.0f}s"
        peak = f"{outcome.median_peak():.0f}"
        yield row(
            name,
            tool,
            time_text,
            ratio,
            peak,
            before,
            counts(optimized),
            error,
            latency,
        )


# --- --base REV: this tree's passes against another revision's ---

BASE_PASSES = ("fuse-ops", "optimize")

PASS_TIMER = """
import json, sys, time
from xdsl.context import Context
from graph_opt import api
from graph_opt.passes import get_all_passes
src, warmup, name = sys.argv[1:]
pass_class = get_all_passes()[name]()
pass_class().apply(Context(), api.load(warmup))
module = api.load(src)
start = time.process_time()
pass_class().apply(Context(), module)
print(json.dumps({"seconds": time.process_time() - start}))
"""
"""Seconds of one pass on a loaded model, after a warm-up run on a small one
(imports of the pass's patterns); runs against whichever tree PYTHONPATH names."""


def compare_with_base(rev: str, names: list[str], runs: int, work: Path) -> None:
    base = checkout(rev, work)
    warmup = work / "warmup.onnx"
    onnx.save(make_model("bert"), warmup)
    print(
        f"base = {rev}; {runs} rounds of one run per tree (A, B, A, B);"
        " median CPU seconds of the pass alone"
    )
    print(f"{'model':<13} {'pass':<9} {'base':>12} {'this tree':>10} {'this/base':>9}")
    for name in names:
        src = work / f"{name}.onnx"
        onnx.save(make_model(name), src)
        for pass_name in BASE_PASSES:
            then, now = interleaved(
                [base, REPO], runs, PASS_TIMER, str(src), str(warmup), pass_name
            )
            print(
                f"{name:<13} {pass_name:<9} {then:>12.3f} {now:>10.3f} {now / then:>9.3f}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--sizes", default="5000,20000,50000")
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument(
        "--timeout", type=float, default=600, help="seconds per tool run"
    )
    parser.add_argument(
        "--repeat-under",
        type=float,
        default=30,
        help="repeat a tool's run only while it takes fewer seconds than this",
    )
    parser.add_argument(
        "--ort-level", choices=("basic", "extended"), default="extended"
    )
    parser.add_argument("--no-latency", action="store_true")
    parser.add_argument("--worker", nargs=3, metavar=("TOOL", "SRC", "DST"))
    parser.add_argument(
        "--base",
        metavar="REV",
        help="time fuse-ops and optimize in this tree against revision REV"
        " (or the checkout in directory REV)",
    )
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker, args.ort_level)
        return
    args.tools = args.tools.split(",")
    unknown = set(args.tools) - set(TOOLS)
    if unknown:
        parser.error(f"unknown tools: {', '.join(sorted(unknown))}")
    names = []
    for model in args.models.split(","):
        if model == "chains":
            names += [f"chain-{size}" for size in args.sizes.split(",")]
        elif model in MODELS or model in OTHER_MODELS:
            names.append(model)
        else:
            parser.error(f"unknown model: {model}")
    if args.base:
        with tempfile.TemporaryDirectory() as tmp:
            compare_with_base(args.base, names, args.runs, Path(tmp))
        return
    print(
        f"runs={args.runs} timeout={args.timeout:.0f}s ort-level={args.ort_level};"
        " time = median seconds, load to save; x ours = time / graph-opt's;"
        " peak MB = the process's peak RSS (median)"
    )
    print(HEADER)
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            for line in bench_model(name, args, Path(tmp)):
                print(line, flush=True)


if __name__ == "__main__":
    main()
