"""graph-opt on graphs of many small ops, this tree against an older revision.

For each model, `graph-opt -p optimize -t onnx -o out.onnx model.onnx` runs
in a fresh subprocess for each tree: this checkout, and each --base (revisions of
this repository, extracted with `git archive` into a temporary directory), with
PYTHONPATH pointing at that tree. The child times the command's work after a
warm-up run on a tiny chain (imports and lazy loading left out); the parent
takes its peak RSS (the child's own VmHWM, see bench/peak_rss.py). The floor
is `onnx.load` + `onnx.save` of the same file, timed the same way in the same
bench run. Each cell is the median of --runs runs, tree and floor interleaved
so that both see the same machine load; bytecode is cached in a temporary
directory for every child (PYTHONPYCACHEPREFIX).

Models: conv/BN/ReLU chains with an Identity every third block at --sizes
nodes (graph_opt.testing.model_zoo.conv_chain), and with --models bert-base,
a generated BERT-base encoder (12 layers, hidden 768, sequence 128).

Usage: python bench/small_ops.py [--sizes 20000,50000] [--runs 3]
       [--base b43f438,main] [--models chains,bert-base]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import onnx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.peak_rss import python_code, run_measured  # noqa: E402 - after making the repository importable

GRAPH_OPT = """
import json, sys, time
from graph_opt.tools.launch import graph_opt
src, dst, tiny = sys.argv[1:4]
def optimize(path):
    sys.argv = ["graph-opt", "-p", "optimize", "-t", "onnx", "-o", dst, path]
    try:
        graph_opt()
    except SystemExit as done:
        if done.code:
            raise
optimize(tiny)
start = time.perf_counter()
optimize(src)
print(json.dumps({"seconds": time.perf_counter() - start}))
"""

FLOOR = """
import json, sys, time
import onnx
src, dst = sys.argv[1:3]
onnx.save(onnx.load(sys.argv[3]), dst)
start = time.perf_counter()
onnx.save(onnx.load(src), dst)
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def models(args) -> dict[str, Callable[[], onnx.ModelProto]]:
    from graph_opt.testing import model_zoo

    found: dict[str, Callable[[], onnx.ModelProto]] = {}
    for name in args.models.split(","):
        if name == "chains":
            for size in (int(s) for s in args.sizes.split(",")):
                found[f"chain-{size}"] = lambda size=size: model_zoo.conv_chain(size)
        elif name == "bert-base":
            found[name] = lambda: model_zoo.bert_encoder(
                layers=12, hidden=768, heads=12, seq=128
            )
        else:
            raise SystemExit(f"unknown model: {name}")
    return found


def extract(revision: str, into: Path) -> Path:
    """The tree of `revision`, written under `into`."""
    tree = into / f"tree-{revision.replace('/', '_')}"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", revision],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


@contextmanager
def environment(**values: str):
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def one_run(code: str, tree: Path, src: Path, work: Path) -> tuple[float, float]:
    """Seconds of work and peak RSS (MB) of one child running `code` on `src`."""
    command = python_code(
        code, str(src), str(work / "out.onnx"), str(work / "tiny.onnx")
    )
    with environment(PYTHONPATH=str(tree)):
        _, peak_mb, out = run_measured(command)
    return json.loads(out.strip().splitlines()[-1])["seconds"], peak_mb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,50000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--base", default="b43f438", help="revisions, comma-separated")
    parser.add_argument("--models", default="chains")
    args = parser.parse_args()
    from graph_opt.testing.model_zoo import conv_chain

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        trees = {"this tree": REPO}
        for revision in args.base.split(","):
            trees[revision] = extract(revision, work)
        os.chdir(work)  # a child's sys.path starts with its working directory
        onnx.save(conv_chain(20), work / "tiny.onnx")
        print(
            f"runs={args.runs}; time = median seconds of work (load to save, after a"
            " warm-up); x floor = ratio to onnx.load + onnx.save of the same file"
        )
        header = f"{'model':<12} {'tree':<10} {'time s':>7} {'peak MB':>8} {'x floor':>8} {'x floor MB':>10}"
        print(header)
        with environment(PYTHONPYCACHEPREFIX=str(work / "pycache")):
            for name, make in models(args).items():
                src = work / f"{name}.onnx"
                onnx.save(make(), src)
                runs: dict[str, list[tuple[float, float]]] = {"floor": []}
                runs.update({tree: [] for tree in trees})
                for _ in range(args.runs):
                    runs["floor"].append(one_run(FLOOR, REPO, src, work))
                    for tree, path in trees.items():
                        runs[tree].append(one_run(GRAPH_OPT, path, src, work))
                floor_s = statistics.median(s for s, _ in runs["floor"])
                floor_mb = statistics.median(m for _, m in runs["floor"])
                for tree, measured in runs.items():
                    seconds = statistics.median(s for s, _ in measured)
                    peak = statistics.median(m for _, m in measured)
                    print(
                        f"{name:<12} {tree:<10} {seconds:>7.2f} {peak:>8.0f}"
                        f" {seconds / floor_s:>8.1f} {peak / floor_mb:>10.1f}",
                        flush=True,
                    )
                src.unlink()


if __name__ == "__main__":
    main()
