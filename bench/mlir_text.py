"""Speed of MLIR text: graph-opt's parser and printer against xDSL's and upstream MLIR's.

Table 1, ops/s of parsing and printing the same module: conv/BN/ReLU chains
imported from ONNX (every constant an op) of about 5k/20k/50k/100k ops, in nn's
custom form and in the generic form, by graph-opt (`formats.mlir.parser.FastParser` and
`FastPrinter`), xDSL 0.74 (`Parser` and `Printer`, by default only up to 20k ops:
it takes minutes beyond) and upstream MLIR's C++ parser and printer through
IREE's Python bindings (`iree.compiler.ir`; generic form only, since MLIR does
not know the nn dialect; unregistered dialects allowed). Parsing stops at the
module (no verification); printing writes a string.

Table 2, `graph-opt -p fold-bn` as a whole process, `.mlir` in and out against
`.onnx` in and out, on conv/BN chains of 20k and 50k nodes and a ResNet-50-sized
network (random weights, printed as hex): CPU seconds of the process (user +
system), then wall seconds.

Table 3, the same command on ResNet-50 phase by phase, in this process: read
(and verify, which the `.onnx` import does as it goes and the `.mlir` input
gets after parsing), the pass, write; and the start-up of a `graph-opt`
process. CPU seconds (wall seconds).

Times are medians of CPU time (`time.process_time`, the children's rusage):
this machine is shared, and wall time there measures the other processes.

Usage: python bench/mlir_text.py [--runs 3] [--sizes 5000,20000,50000,100000]
       [--xdsl-up-to 20000] [--chains 20000,50000]
       [--only parse-print|roundtrip|phases]
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from functools import partial
from io import StringIO
from pathlib import Path

import onnx
from xdsl.parser import Parser
from xdsl.printer import Printer

from graph_opt import api
from graph_opt.formats.mlir.parser import FastParser
from graph_opt.formats.mlir.printer import FastPrinter
from graph_opt.testing.model_zoo import conv_chain

OPS_PER_CHAIN_NODE = 2.5
"""Ops of the imported chain per ONNX node (its constants are ops too)."""

GRAPH_OPT = (
    shutil.which("graph-opt", path=os.path.dirname(sys.executable)) or "graph-opt"
)


def median_seconds(step: Callable[[], object], runs: int) -> float:
    """Median CPU seconds of `step` in this process (on a shared machine, wall time
    measures the neighbours)."""
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        step()
        times.append(time.process_time() - start)
    return statistics.median(times)


def median_process_seconds(command: list[str], runs: int) -> tuple[float, float]:
    """Median CPU seconds (user + system) and wall seconds of a command."""
    cpu, wall = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(cpu), statistics.median(wall)


def chain_module(ops: int):
    module = api.load(conv_chain(round(ops / OPS_PER_CHAIN_NODE)))
    module.attributes.clear()  # its ONNX opset key "" is not valid MLIR syntax
    return module


def printed(printer_class, module, generic: bool) -> str:
    out = StringIO()
    printer_class(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue()


def mlir_steps(text: str):
    """Parse and print with upstream MLIR (IREE's bindings), or None without them."""
    try:
        from iree.compiler import ir
    except ImportError:
        return None
    context = ir.Context()
    context.allow_unregistered_dialects = True
    module = ir.Module.parse(text, context)
    return (
        lambda: ir.Module.parse(text, context),
        lambda: module.operation.get_asm(print_generic_op_form=True),
    )


def rate(ops: int, seconds: float | None) -> str:
    return "-" if seconds is None else f"{ops / seconds:,.0f}"


def parse_print_row(ctx, module, generic: bool, runs: int, with_xdsl: bool) -> str:
    ops = sum(1 for _ in module.walk())
    text = printed(FastPrinter, module, generic)
    seconds = {
        "parse": median_seconds(partial(parse_with, FastParser, ctx, text), runs),
        "print": median_seconds(partial(printed, FastPrinter, module, generic), runs),
    }
    if with_xdsl:
        seconds["xdsl parse"] = median_seconds(
            partial(parse_with, Parser, ctx, text), runs
        )
        seconds["xdsl print"] = median_seconds(
            partial(printed, Printer, module, generic), runs
        )
    steps = mlir_steps(text) if generic else None
    if steps is not None:
        seconds["mlir parse"] = median_seconds(steps[0], runs)
        seconds["mlir print"] = median_seconds(steps[1], runs)

    def rate(key: str) -> str:
        return f"{ops / seconds[key]:,.0f}" if key in seconds else "-"

    form = "generic" if generic else "custom"
    return (
        f"{ops:>8} {form:<8} | {rate('parse'):>17} {rate('xdsl parse'):>7}"
        f" {rate('mlir parse'):>8} | {rate('print'):>17} {rate('xdsl print'):>7}"
        f" {rate('mlir print'):>8}"
    )


def parse_with(parser_class, ctx, text: str):
    return parser_class(ctx, text).parse_module()


def parse_print_table(sizes: list[int], runs: int, xdsl_up_to: int) -> None:
    ctx = api.context()
    header = (
        f"{'ops':>8} {'form':<8} | {'parse/s graph-opt':>17} {'xDSL':>7} {'MLIR':>8}"
        f" | {'print/s graph-opt':>17} {'xDSL':>7} {'MLIR':>8}"
    )
    print(header)
    print("-" * len(header))
    for size in sizes:
        module = chain_module(size)
        for generic in (False, True):
            with_xdsl = size <= xdsl_up_to
            print(parse_print_row(ctx, module, generic, runs, with_xdsl), flush=True)


def fold_bn(source: Path, target: Path) -> list[str]:
    return [GRAPH_OPT, str(source), "-p", "fold-bn", "-o", str(target)]


def roundtrip_table(chains: list[int], runs: int, work: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from roundtrip import resnet50

    models: dict[str, Callable[[], onnx.ModelProto]] = {"resnet50": resnet50}
    for nodes in chains:
        models[f"chain-{nodes}"] = lambda nodes=nodes: conv_chain(nodes)
    print(
        f"{'model':<12} {'nodes':>7} {'.onnx in/out s':>15} {'.mlir in/out s':>15}"
        f" {'ratio':>6} {'wall .onnx':>11} {'wall .mlir':>11} {'ratio':>6}"
        f" {'.mlir MB':>9}"
    )
    for name, make in models.items():
        model = make()
        onnx_in, onnx_out = work / "in.onnx", work / "out.onnx"
        mlir_in, mlir_out = work / "in.mlir", work / "out.mlir"
        onnx.save(model, onnx_in)
        api.save(api.load(onnx_in), mlir_in)
        onnx_cpu, onnx_wall = median_process_seconds(fold_bn(onnx_in, onnx_out), runs)
        mlir_cpu, mlir_wall = median_process_seconds(fold_bn(mlir_in, mlir_out), runs)
        size_mb = mlir_in.stat().st_size / 1e6
        print(
            f"{name:<12} {len(model.graph.node):>7} {onnx_cpu:>15.2f} {mlir_cpu:>15.2f}"
            f" {mlir_cpu / onnx_cpu:>6.2f} {onnx_wall:>11.2f} {mlir_wall:>11.2f}"
            f" {mlir_wall / onnx_wall:>6.2f} {size_mb:>9.1f}",
            flush=True,
        )


def median_times(step: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median CPU and wall seconds of `step` in this process."""
    cpu, wall = [], []
    for _ in range(runs):
        gc.collect()
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        step()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return statistics.median(cpu), statistics.median(wall)


def read_onnx(path: Path):
    from graph_opt.formats.onnx.importer import import_model, load_model

    return import_model(load_model(str(path)), verify=True)


def read_mlir(path: Path):
    from graph_opt.files import mapped
    from graph_opt.formats.mlir.parser import parse_module
    from graph_opt.verification import verify_module

    with open(path, "rb") as stream, mapped(stream) as source:
        module = parse_module(api.context(), source, str(path))
    verify_module(module)
    return module


def phases_table(runs: int, work: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from roundtrip import resnet50

    onnx_in = work / "in.onnx"
    onnx.save(resnet50(), onnx_in)
    mlir_in = work / "in.mlir"
    api.save(api.load(onnx_in), mlir_in)
    fold_bn_pass = api.pipeline("fold-bn")
    warnings.simplefilter("ignore")  # (fold-bn's remark that the random BNs stay)
    rows: dict[str, list[tuple[float, float]]] = {}
    for source, read in ((onnx_in, read_onnx), (mlir_in, read_mlir)):
        module = read(source)
        target = work / f"out{source.suffix}"
        rows.setdefault("read", []).append(median_times(partial(read, source), runs))
        rows.setdefault("fold-bn", []).append(
            median_times(partial(fold_bn_pass.apply, api.context(), module), runs)
        )
        rows.setdefault("write", []).append(
            median_times(partial(api.save, module, target), runs)
        )
    start_up = median_process_seconds([GRAPH_OPT, "--version"], runs)
    rows["start-up (process)"] = [start_up, start_up]
    print(
        f"{'ResNet-50 phase':<20} {'.onnx CPU (wall) s':>19} {'.mlir CPU (wall) s':>19}"
    )
    for name, cells in rows.items():
        texts = [f"{cpu:.3f} ({wall:.3f})" for cpu, wall in cells]
        print(f"{name:<20} {texts[0]:>19} {texts[1]:>19}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="5000,20000,50000,100000")
    parser.add_argument("--xdsl-up-to", type=int, default=20000, metavar="OPS")
    parser.add_argument("--chains", default="20000,50000")
    parser.add_argument("--only", choices=("parse-print", "roundtrip", "phases"))
    args = parser.parse_args()
    if args.only == "phases":
        with tempfile.TemporaryDirectory() as tmp:
            phases_table(args.runs, Path(tmp))
        return
    if args.only != "roundtrip":
        sizes = [int(s) for s in args.sizes.split(",")]
        parse_print_table(sizes, args.runs, args.xdsl_up_to)
        print()
    if args.only != "parse-print":
        with tempfile.TemporaryDirectory() as tmp:
            chains = [int(n) for n in args.chains.split(",")]
            roundtrip_table(chains, args.runs, Path(tmp))


if __name__ == "__main__":
    main()
