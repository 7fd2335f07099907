"""Benchmark: match conv+batch_norm+relu on synthetic graphs of 5k, 20k and 50k ops.

Prints seconds (median of several runs) and ops/second per size, and how the
time per op grows from the smallest graph to the largest (1.0 = linear).
Run: python bench/patterns.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import ReluOp, TanhOp
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.patterns import match_all
from graph_opt.patterns.library import conv_bn_relu

SIZES = (5_000, 20_000, 50_000)
CHANNELS = 4


def synthetic_graph(op_count: int) -> ModuleOp:
    """A chain of conv -> batch_norm -> relu blocks, with a tanh after every 4th block."""
    data = TensorType(f32, [1, CHANNELS, 4, 4])
    function = func.FuncOp("main", ([data], [data]))
    ops: list = []
    value = function.body.block.args[0]
    block = 0
    while len(ops) < op_count:
        weights = ConstantOp.from_array(np.ones((CHANNELS, CHANNELS, 1, 1), np.float32))
        params = [
            ConstantOp.from_array(np.ones(CHANNELS, np.float32)) for _ in range(4)
        ]
        conv = ConvOp.create_inferred([value, weights])
        norm = BatchNormOp.create_inferred([conv, *params])
        relu = ReluOp.create_inferred([norm])
        ops += [weights, *params, conv, norm, relu]
        if block % 4 == 3:
            ops.append(TanhOp.create_inferred([relu]))
        value = ops[-1].results[0]
        block += 1
    function.body.block.add_ops([*ops, func.ReturnOp(value)])
    return ModuleOp([function])


def time_matching(module: ModuleOp, runs: int) -> tuple[float, int]:
    pattern = conv_bn_relu()
    timings, found = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        found = len(match_all(pattern, module))
        timings.append(time.perf_counter() - start)
    return statistics.median(timings), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'ops':>8} {'matches':>8} {'seconds':>9} {'ops/s':>10}")
    per_op = []
    for size in SIZES:
        module = synthetic_graph(size)
        op_count = sum(1 for _ in module.walk()) - 1
        seconds, found = time_matching(module, args.runs)
        per_op.append(seconds / op_count)
        print(f"{op_count:>8} {found:>8} {seconds:>9.3f} {op_count / seconds:>10.0f}")
    print(f"time per op, {SIZES[-1]} vs {SIZES[0]} ops: x{per_op[-1] / per_op[0]:.2f}")


if __name__ == "__main__":
    main()
