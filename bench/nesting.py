"""`graph-opt -p optimize` on scf.if nested N deep: the time should grow
linearly with N (it was quadratic: 2.5, 7.6 and 26.6 s at 250, 500 and 1,000).

Each level's then-branch computes a relu and yields the next level's result;
every else-branch yields the function's argument. Times are wall seconds of the
whole command (about 1.5 s of it is start-up), the median over --runs.

Usage: python bench/nesting.py [--depths 250,500,1000,2000] [--runs 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.peak_rss import ChildFailed, graph_opt, run_measured  # noqa: E402 - after making the repository importable

TENSOR = "tensor<2x2xf32>"


def nested_ifs(depth: int) -> str:
    """A function whose body is `depth` scf.if nested in each other's then-branch."""
    lines = [f"func.func @main(%c: i1, %x: {TENSOR}) -> {TENSOR} {{"]
    for i in range(depth):
        lines.append(f"%r{i} = scf.if %c -> ({TENSOR}) {{")
        lines.append(f"%a{i} = nn.relu %x : ({TENSOR}) -> {TENSOR}")
    for i in reversed(range(depth)):
        inner = f"%r{i + 1}" if i + 1 < depth else f"%a{i}"
        lines.append(f"scf.yield {inner} : {TENSOR}")
        lines.append(f"}} else {{\nscf.yield %x : {TENSOR}\n}}")
    lines.append(f"func.return %r0 : {TENSOR}\n}}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", default="250,500,1000,2000")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    print(f"{'depth':>6} {'seconds':>8} {'s/1000 levels':>14} {'peak MB':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for depth in map(int, args.depths.split(",")):
            source = Path(tmp) / f"nested{depth}.mlir"
            source.write_text(nested_ifs(depth))
            command = graph_opt(str(source), "-p", "optimize", "-o", f"{source}.out")
            try:
                runs = [run_measured(command) for _ in range(args.runs)]
            except ChildFailed as e:  # e.g. past the parsers' recursion limit
                print(f"{depth:>6} {e}")
                continue
            seconds = statistics.median(r[0] for r in runs)
            peak = max(r[1] for r in runs)
            print(
                f"{depth:>6} {seconds:>8.2f} {1000 * seconds / depth:>14.2f} {peak:>8.0f}"
            )


if __name__ == "__main__":
    main()
