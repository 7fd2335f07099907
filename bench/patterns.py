"""Benchmark: the pattern language on synthetic graphs of 5k, 20k and 50k ops.

Cases: `match` finds conv+batch_norm+relu blocks (match_all); `dominates`
finds every add of a ladder dominated by a conv (match_all: each of the n
matches covers the adds above it); `rewrites` collapses relu chains with
apply_rewrites (half as many rewrites as ops, past any fixed cap of 10,000);
`associative` looks for a three-leaf add chain at every add of a long chain
(each root's walk stops past three leaves); `graph` finds every
conv >> batch_norm >> relu of the blocks as a Relax graph pattern
(PatternContext.match_all).
Prints a table of seconds (median of several runs), ops/second and what was
found, and per case how the time per op grows from the smallest graph to the
largest (1.0 = linear). Run: python bench/patterns.py [--runs N]

With `--base REV` (a revision, or a directory holding a checkout) each case
runs in its own process, this tree and REV taking turns (A, B, A, B) for
--runs rounds; the table gives both medians (CPU seconds, time.process_time: steadier than
wall time on a shared machine) and their ratio:
python bench/patterns.py --base ffce794 --runs 5 [--sizes 5000,50000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import AddOp, ReluOp, TanhOp
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.patterns import (
    DFPattern,
    PatternContext,
    apply_rewrites,
    dominates,
    is_op,
    match_all,
    wildcard,
)
from graph_opt.patterns.library import RemoveDoubleRelu, conv_bn_relu

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


def add_ladder(op_count: int) -> ModuleOp:
    """A conv, then adds, each of the two values before it: the conv dominates them all."""
    data = TensorType(f32, [1, CHANNELS, 4, 4])
    function = func.FuncOp("main", ([data], [data]))
    weights = ConstantOp.from_array(np.ones((CHANNELS, CHANNELS, 1, 1), np.float32))
    conv = ConvOp.create_inferred([function.body.block.args[0], weights])
    ops, before, last = [weights, conv], conv, conv
    while len(ops) < op_count:
        add = AddOp.create_inferred([last, before])
        ops.append(add)
        before, last = last, add
    function.body.block.add_ops([*ops, func.ReturnOp(last)])
    return ModuleOp([function])


def relu_runs(op_count: int) -> ModuleOp:
    """Runs of tanh, relu, relu, relu: two RemoveDoubleRelu rewrites per four ops."""
    data = TensorType(f32, [1, CHANNELS, 4, 4])
    function = func.FuncOp("main", ([data], [data]))
    value, ops = function.body.block.args[0], []
    while len(ops) < op_count:
        kind = TanhOp if len(ops) % 4 == 0 else ReluOp
        ops.append(kind.create_inferred([value]))
        value = ops[-1].results[0]
    function.body.block.add_ops([*ops, func.ReturnOp(value)])
    return ModuleOp([function])


def count_matches(
    pattern_factory: Callable[[], DFPattern],
) -> Callable[[ModuleOp], int]:
    return lambda module: len(match_all(pattern_factory(), module))


def dominated_adds() -> DFPattern:
    add = is_op("nn.add")(wildcard(), wildcard())
    return dominates(is_op("nn.conv")(wildcard(), wildcard()), add, add)


def add_chain(op_count: int) -> ModuleOp:
    """x + c + c + ...: one chain of single-use adds."""
    data = TensorType(f32, [1, CHANNELS, 4, 4])
    function = func.FuncOp("main", ([data], [data]))
    ones = ConstantOp.from_array(np.ones((1, CHANNELS, 4, 4), np.float32))
    value, ops = function.body.block.args[0], [ones]
    while len(ops) < op_count:
        ops.append(AddOp.create_inferred([value, ones]))
        value = ops[-1].results[0]
    function.body.block.add_ops([*ops, func.ReturnOp(value)])
    return ModuleOp([function])


def three_leaf_sums() -> DFPattern:
    return is_op("add", associative=True)(wildcard(), wildcard(), wildcard())


def count_graph_matches(module: ModuleOp) -> int:
    with PatternContext() as context:
        is_op("conv") >> is_op("batch_norm") >> is_op("relu")
    block = module.body.block.ops.first.body.block  # type: ignore[union-attr]
    return len(context.match_all(block))


def count_rewrites(module: ModuleOp) -> int:
    return apply_rewrites(module, [RemoveDoubleRelu()]).total


CASES: dict[str, tuple[Callable[[int], ModuleOp], Callable[[ModuleOp], int]]] = {
    "match": (synthetic_graph, count_matches(conv_bn_relu)),
    "dominates": (add_ladder, count_matches(dominated_adds)),
    "rewrites": (relu_runs, count_rewrites),
    "associative": (add_chain, count_matches(three_leaf_sums)),
    "graph": (synthetic_graph, count_graph_matches),
}


def time_case(
    build: Callable[[int], ModuleOp],
    run: Callable[[ModuleOp], int],
    size: int,
    runs: int,
) -> tuple[int, float, int]:
    """(ops, median seconds, what `run` found); a fresh graph per run (rewrites change it)."""
    timings, found, op_count = [], 0, 0
    for _ in range(runs):
        module = build(size)
        op_count = sum(1 for _ in module.walk()) - 1
        start = time.perf_counter()
        found = run(module)
        timings.append(time.perf_counter() - start)
    return op_count, statistics.median(timings), found


CASE_TIMER = """
import json, runpy, sys, time
script, case, size = sys.argv[1:]
build, run = runpy.run_path(script)["CASES"][case]
module = build(int(size))
start = time.process_time()
run(module)
print(json.dumps({"seconds": time.process_time() - start}))
"""
"""Seconds of one case on a fresh graph, with graph-opt from PYTHONPATH's tree."""


def compare_with_base(rev: str, sizes: list[int], runs: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.base_rev import REPO, checkout, interleaved

    print(
        f"base = {rev}; {runs} rounds of one run per tree (A, B, A, B); median CPU seconds"
    )
    print(f"{'case':<12} {'size':>8} {'base':>9} {'this tree':>10} {'this/base':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        base = checkout(rev, Path(tmp))
        for name in CASES:
            for size in sizes:
                then, now = interleaved(
                    [base, REPO], runs, CASE_TIMER, __file__, name, str(size)
                )
                print(
                    f"{name:<12} {size:>8} {then:>9.3f} {now:>10.3f} {now / then:>9.3f}",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--base", metavar="REV", help="time each case in this tree against REV"
    )
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    args = parser.parse_args()
    if args.base:
        compare_with_base(args.base, [int(n) for n in args.sizes.split(",")], args.runs)
        return
    print(f"{'case':<12} {'ops':>8} {'found':>8} {'seconds':>9} {'ops/s':>10}")
    growth = {}
    for name, (build, run) in CASES.items():
        per_op = []
        for size in SIZES:
            op_count, seconds, found = time_case(build, run, size, args.runs)
            per_op.append(seconds / op_count)
            print(
                f"{name:<12} {op_count:>8} {found:>8} {seconds:>9.3f} {op_count / seconds:>10.0f}"
            )
        growth[name] = per_op[-1] / per_op[0]
    for name, factor in growth.items():
        print(f"{name}: time per op, {SIZES[-1]} vs {SIZES[0]} ops: x{factor:.2f}")


if __name__ == "__main__":
    main()
