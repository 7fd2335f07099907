"""`dense_resource` blobs of an .mlir file: this tree (blobs decoded lazily)
against an older revision (every blob decoded at parse) and upstream MLIR's
`iree-opt`, on a file holding one float32 weight of --mib MiB.

Two jobs: print back (`-p canonicalize --weights-as-resources`, the blob
copied through) and, for graph-opt, export to ONNX. Wall seconds and peak RSS
(the child's own VmHWM, mapped file pages included; iree-opt's from
`os.wait4`) are medians of --runs; ratios are to this tree, from the same run.

    python bench/mlir_resources.py --mib 64 --runs 3 --base c88ad23
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from bench.peak_rss import graph_opt, run_measured
from bench.small_ops import extract
from graph_opt import api
from graph_opt.dialects.nn.constant import ConstantOp


def write_model(path: Path, mib: int) -> None:
    values = np.random.default_rng(0).standard_normal(mib << 18, np.float32)
    constant = ConstantOp.from_array(values)
    function = func.FuncOp("weight", (([], [constant.output.type])))
    function.body.block.add_ops([constant, func.ReturnOp(constant)])
    module = ModuleOp([function])
    with open(path, "w") as out:
        out.write(api.to_mlir(module, generic=True, weights_as_resources=64))


def graph_opt_run(tree: Path, *args: str) -> tuple[float, float]:
    """graph-opt of `tree`: on PYTHONPATH and the child's working directory
    (`python -c` puts that first on sys.path)."""
    os.environ["PYTHONPATH"] = str(tree)
    here = os.getcwd()
    os.chdir(tree)
    try:
        seconds, peak_mb, _ = run_measured(graph_opt(*args))
    finally:
        os.chdir(here)
    return seconds, peak_mb


def iree_opt_run(source: Path, out: Path) -> tuple[float, float]:
    start = time.perf_counter()
    child = subprocess.Popen(
        ["iree-opt", "--allow-unregistered-dialect", str(source), "-o", str(out)]
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"iree-opt failed ({child.returncode})")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def median_of(runs: int, measure) -> tuple[float, float]:
    results = [measure() for _ in range(runs)]
    return (
        statistics.median(s for s, _ in results),
        statistics.median(m for _, m in results),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--base", default="c88ad23", help="the older revision")
    args = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source, out = work / "in.mlir", work / "out.mlir"
        write_model(source, args.mib)
        trees = {"this tree": here, args.base: extract(args.base, work)}
        jobs = {
            "print back": ("-p", "canonicalize", "--weights-as-resources"),
            "to ONNX": ("-t", "onnx"),
        }
        print(f"one f32 weight of {args.mib} MiB, medians of {args.runs}")
        print("| job | tool | wall s | peak RSS MB | ratio s | ratio MB |")
        print("| --- | --- | --- | --- | --- | --- |")
        for job, options in jobs.items():
            target = out.with_suffix(".onnx" if "onnx" in options else ".mlir")
            command = (str(source), *options, "-o", str(target))
            rows = {
                name: median_of(args.runs, partial(graph_opt_run, tree, *command))
                for name, tree in trees.items()
            }
            if job == "print back":
                rows["iree-opt"] = median_of(
                    args.runs, partial(iree_opt_run, source, out)
                )
            ours_s, ours_mb = rows["this tree"]
            for name, (seconds, mb) in rows.items():
                print(
                    f"| {job} | {name} | {seconds:.2f} | {mb:.0f} "
                    f"| {seconds / ours_s:.2f} | {mb / ours_mb:.2f} |"
                )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
