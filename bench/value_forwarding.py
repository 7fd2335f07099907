"""Forwarding a refined value to a function's return: prune's identities on a
generated module, with the call index (one walk of the module per pass run,
then updated from the rewriter's events) against a walk of the module per
forwarded value (the same walker, its run not wrapped in the index:
what the code did before, and what another walker still does).

The module: N functions, each returning an identity of a relu of its
argument, from tensor<4xf32> to tensor<?xf32> (so each forward asks whether
the function is called), and @main calling the first. Times are medians over --runs, both ways in
the same run.

Usage: python bench/value_forwarding.py [--sizes 500,1000,2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from xdsl.pattern_rewriter import PatternRewriteWalker  # noqa: E402 - after making the repository importable

from graph_opt.api import parse  # noqa: E402
from graph_opt.passes.prune.prune import prune_patterns  # noqa: E402
from graph_opt.rewriting.op_dispatch import dispatching_walker  # noqa: E402


def module_text(n: int) -> str:
    functions = [
        f"""func.func @f{i}(%x: tensor<4xf32>) -> tensor<?xf32> {{
  %r = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %i = nn.identity %r : (tensor<4xf32>) -> tensor<?xf32>
  func.return %i : tensor<?xf32>
}}"""
        for i in range(n)
    ]
    caller = """func.func @main(%x: tensor<4xf32>) -> tensor<?xf32> {
  %y = func.call @f0(%x) : (tensor<4xf32>) -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}"""
    return "\n".join([*functions, caller])


def with_index(module) -> None:
    dispatching_walker(prune_patterns(), walk_reverse=True).rewrite_module(module)


def walk_per_forward(module) -> None:
    """The same walker, its run not wrapped in the index."""
    walker = dispatching_walker(prune_patterns(), walk_reverse=True)
    PatternRewriteWalker.rewrite_module(walker, module)


def seconds(run, text: str, n: int) -> float:
    module = parse(text)
    start = time.perf_counter()
    run(module)
    taken = time.perf_counter() - start
    left = sum(op.name == "nn.identity" for op in module.walk())
    assert left == 1, f"{left} of {n} identities left (f0's, called, stays)"
    return taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,1000,2000")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'N':>6} {'ops':>7} {'index s':>9} {'walk s':>9} {'walk/index':>10}")
    for n in (int(s) for s in args.sizes.split(",")):
        text = module_text(n)
        ops = sum(1 for _ in parse(text).walk())
        indexed = statistics.median(
            seconds(with_index, text, n) for _ in range(args.runs)
        )
        walked = statistics.median(
            seconds(walk_per_forward, text, n) for _ in range(args.runs)
        )
        print(
            f"{n:>6} {ops:>7} {indexed:>9.3f} {walked:>9.3f} {walked / indexed:>10.1f}"
        )


if __name__ == "__main__":
    main()
