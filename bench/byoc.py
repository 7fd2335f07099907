"""Benchmark: partitions written for another compiler (BYOC), ours vs onnx.utils.

A chain of N conv + bias + relu blocks. Ours: `partition-pattern{emit-dir
format=onnx embed-constants=true}` finds the blocks, outlines them and writes
one ONNX model per block. Peer: `onnx.utils.extract_model`, the ONNX tool for
cutting a subgraph into its own model, once per block of the exported model
(its block boundaries given, as a user would have to find them). Prints the
median seconds of several runs and the ratio peer / ours from the same runs.
Run: python bench/byoc.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import onnx.utils
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import AddOp, ReluOp
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.passes.partition_pattern import PartitionPatternPass

BLOCKS = (16, 64, 256)
CHANNELS, SIZE = 8, 16


def conv_chain(blocks: int) -> ModuleOp:
    """`blocks` conv (same padding) + bias + relu blocks, one after another."""
    value_type = TensorType(f32, [1, CHANNELS, SIZE, SIZE])
    function = func.FuncOp("main", ([value_type], [value_type]))
    rng = np.random.default_rng(0)
    x, ops = function.body.block.args[0], []
    for _ in range(blocks):
        weight = ConstantOp.from_array(
            rng.standard_normal((CHANNELS, CHANNELS, 3, 3)).astype(np.float32)
        )
        bias = ConstantOp.from_array(
            rng.standard_normal((CHANNELS, 1, 1)).astype(np.float32)
        )
        conv = ConvOp.create_inferred([x, weight], {"pads": i64_array([1, 1, 1, 1])})
        add = AddOp.create_inferred([conv, bias])
        relu = ReluOp.create_inferred([add])
        ops += [weight, bias, conv, add, relu]
        x = relu.results[0]
    function.body.block.add_ops([*ops, func.ReturnOp(x)])
    return ModuleOp([function])


def ours(blocks: int, directory: Path) -> int:
    module = conv_chain(blocks)
    started = time.perf_counter()
    PartitionPatternPass(
        "conv-bias-relu", embed_constants=True, emit_dir=str(directory), format="onnx"
    ).apply(Context(), module)
    elapsed = time.perf_counter() - started
    assert len(list(directory.glob("*.onnx"))) == blocks
    return elapsed


def peer(blocks: int, directory: Path) -> float:
    model_path = directory / "model.onnx"
    onnx.save(export_module(conv_chain(blocks)), model_path)
    nodes = onnx.load(model_path).graph.node
    convs = [n for n in nodes if n.op_type == "Conv"]
    relus = [n for n in nodes if n.op_type == "Relu"]
    started = time.perf_counter()
    for i, (conv, relu) in enumerate(zip(convs, relus)):
        onnx.utils.extract_model(
            str(model_path), str(directory / f"block_{i}.onnx"),
            [conv.input[0]], [relu.output[0]], check_model=False,
        )  # fmt: skip
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    print(f"{'blocks':>7} {'ours s':>9} {'onnx.utils s':>13} {'peer/ours':>10}")
    for blocks in BLOCKS:
        timings: dict[str, list[float]] = {"ours": [], "peer": []}
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
                timings["ours"].append(ours(blocks, Path(a)))
                timings["peer"].append(peer(blocks, Path(b)))
        mine, theirs = (statistics.median(timings[k]) for k in ("ours", "peer"))
        print(f"{blocks:>7} {mine:>9.3f} {theirs:>13.3f} {theirs / mine:>10.2f}")


if __name__ == "__main__":
    main()
