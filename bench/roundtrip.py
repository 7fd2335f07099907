"""Cost of graph-opt's ONNX round trip against the floor of reading and writing the model.

For each model: `onnx.load` + `onnx.save` (the floor) and graph-opt's `api.load` + `api.save` (load, import,
export, save), both in-process; then the same as whole processes: a fresh
`python3` that loads and saves the model (the process floor) and
`graph-opt in.onnx -t onnx -o out.onnx` (`python -m graph_opt`), both started
with this interpreter (not through shell shims such as pyenv's), with each
process's peak RSS. Each ratio is to the floor of its kind.
Models: a ResNet-50-sized network (seeded random weights, ~25M parameters) and
synthetic chains of 1,000 / 20,000 / 50,000 nodes.

Usage: python bench/roundtrip.py [--runs N] [--sizes 1000,20000,50000] [--profile NAME]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.peak_rss import graph_opt, python_code, run_measured  # noqa: E402
from graph_opt import api  # noqa: E402

RESNET50_STAGES = [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]


class _GraphBuilder:
    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, shape: tuple[int, ...], prefix: str = "w") -> str:
        name = self.name(prefix)
        data = self.rng.standard_normal(shape, dtype=np.float32) * 0.05
        self.initializers.append(numpy_helper.from_array(data, name))
        return name

    def node(self, op_type: str, inputs: list[str], **attrs) -> str:
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def conv_bn(self, x: str, cin: int, cout: int, k: int, stride: int, relu: bool):
        w = self.weight((cout, cin, k, k))
        y = self.node(
            "Conv", [x, w], kernel_shape=[k, k], strides=[stride] * 2, pads=[k // 2] * 4
        )
        bn = [self.weight((cout,), "bn") for _ in range(4)]
        y = self.node("BatchNormalization", [y, *bn], epsilon=1e-5)
        return self.node("Relu", [y]) if relu else y


def resnet50() -> onnx.ModelProto:
    """ResNet-50's topology (bottleneck blocks, [3, 4, 6, 3]) with random weights."""
    g = _GraphBuilder(seed=0)
    x = g.conv_bn("input", 3, 64, 7, 2, relu=True)
    x = g.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4)
    cin = 64
    for width, blocks, stride in RESNET50_STAGES:
        for i in range(blocks):
            s = stride if i == 0 else 1
            y = g.conv_bn(x, cin, width, 1, 1, relu=True)
            y = g.conv_bn(y, width, width, 3, s, relu=True)
            y = g.conv_bn(y, width, width * 4, 1, 1, relu=False)
            shortcut = g.conv_bn(x, cin, width * 4, 1, s, relu=False) if i == 0 else x
            x = g.node("Relu", [g.node("Add", [y, shortcut])])
            cin = width * 4
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x])])
    x = g.node("Gemm", [x, g.weight((1000, cin)), g.weight((1000,))], transB=1)
    return _model(g, x, [1, 3, 224, 224], [1, 1000])


def chain(nodes: int) -> onnx.ModelProto:
    """A chain of small elementwise ops, each with its own constant."""
    g = _GraphBuilder(seed=1)
    x = "input"
    kinds = ["Add", "Mul", "Relu", "Sigmoid", "Sub", "Tanh"]
    for i in range(nodes):
        op_type = kinds[i % len(kinds)]
        unary = op_type in ("Relu", "Sigmoid", "Tanh")
        x = g.node(op_type, [x] if unary else [x, g.weight((4,), "c")])
    return _model(g, x, [1, 4], [1, 4])


def _model(g: _GraphBuilder, output: str, in_shape, out_shape) -> onnx.ModelProto:
    graph = helper.make_graph(
        g.nodes,
        "bench",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, out_shape)],
        g.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def median_seconds(
    step: Callable[[Path, Path], object], src: Path, dst: Path, runs: int
):
    times = []
    for _ in range(runs):
        gc.collect()  # not to charge one step for the garbage of another
        start = time.perf_counter()
        step(src, dst)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def floor(src: Path, dst: Path) -> None:
    onnx.save(onnx.load(src), dst)


def in_process(src: Path, dst: Path) -> None:
    api.save(api.load(src), dst)


FLOOR_SCRIPT = "import onnx, sys; onnx.save(onnx.load(sys.argv[1]), sys.argv[2])"


def median_process(command: list[str], runs: int) -> tuple[float, float]:
    """Median seconds and median peak RSS (MB) of a process."""
    measured = [run_measured(command) for _ in range(runs)]
    return (
        statistics.median(seconds for seconds, _, _ in measured),
        statistics.median(peak for _, peak, _ in measured),
    )


def table(models: dict[str, Callable[[], onnx.ModelProto]], runs: int, work: Path):
    print(
        f"{'model':<12} {'nodes':>7} {'floor s':>8} {'in-proc s':>10} {'x floor':>8}"
        f" {'proc floor s':>13} {'process s':>10} {'x floor':>8} {'us/node':>8}"
        f" {'floor MB':>9} {'process MB':>11} {'x floor':>8}"
    )
    for name, make in models.items():
        model = make()
        src, dst = work / f"{name}.onnx", work / "out.onnx"
        onnx.save(model, src)
        nodes = len(model.graph.node)
        base = median_seconds(floor, src, dst, runs)
        inproc = median_seconds(in_process, src, dst, runs)
        process_base, floor_mb = median_process(
            python_code(FLOOR_SCRIPT, str(src), str(dst)), runs
        )
        process, process_mb = median_process(
            graph_opt(str(src), "-t", "onnx", "-o", str(dst)), runs
        )
        per_node = (inproc - base) / nodes * 1e6
        print(
            f"{name:<12} {nodes:>7} {base:>8.3f} {inproc:>10.3f} {inproc / base:>8.2f}"
            f" {process_base:>13.3f} {process:>10.3f} {process / process_base:>8.2f}"
            f" {per_node:>8.1f} {floor_mb:>9.0f} {process_mb:>11.0f}"
            f" {process_mb / floor_mb:>8.2f}"
        )


def profile(model: onnx.ModelProto, work: Path) -> None:
    src, dst, stats = work / "in.onnx", work / "out.onnx", work / "profile"
    onnx.save(model, src)
    cProfile.runctx("in_process(src, dst)", globals(), locals(), str(stats))
    pstats.Stats(str(stats)).sort_stats("cumulative").print_stats(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="1000,20000,50000")
    parser.add_argument(
        "--profile", help="profile the in-process round trip of one model"
    )
    args = parser.parse_args()
    models = {"resnet50": resnet50}
    for size in map(int, args.sizes.split(",")):
        models[f"chain-{size}"] = partial(chain, size)
    with tempfile.TemporaryDirectory() as tmp:
        if args.profile:
            profile(models[args.profile](), Path(tmp))
        else:
            table(models, args.runs, Path(tmp))


if __name__ == "__main__":
    main()
