"""A long fuzzing campaign of graph-opt (graph_opt/testing/fuzz): random valid
ONNX graphs and TensorFlow GraphDefs through every pass, against onnxruntime and
the interpreter; then malformed inputs made from them through `graph-opt`;
then hostile files (graph_opt/testing/fuzz/hostile_*.py: symlinks, FIFOs and
devices in model directories, damaged checkpoints, memory bombs, endless loops)
through `graph-opt` and `graph-opt-run` under an audit of the files they open.

Prints `fuzz[PASS]: N graphs, K mismatches, C crashes` (and the malformed-input
counts) and `hostile[PASS]: N inputs, 0 reads outside, 0 corrupt accepted,
0 tracebacks, ...`, or FAIL with each finding; reproducers go to --findings.

Usage: python bench/fuzz.py [--graphs 500] [--malformed 300] [--hostile 3]
                            [--seed S] [--findings DIR] [--jobs J]
(`--graphs 0` runs the hostile files only; `--hostile 0` skips them.)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from graph_opt.testing.fuzz.campaign import timed_campaign
from graph_opt.testing.fuzz.hostile_campaign import GENERATORS, run_hostile_campaign


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=500)
    parser.add_argument("--malformed", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hostile", type=int, default=3,
                        help=f"rounds of the {len(GENERATORS)} hostile-file kinds")  # fmt: skip
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--findings", type=Path, default=Path("fuzz-findings"))
    args = parser.parse_args()
    passed = True
    if args.graphs:
        passed = _graphs(args)
    if args.hostile:
        start = time.perf_counter()
        hostile = run_hostile_campaign(
            args.hostile, args.seed, args.findings,
            log=lambda line: print(line, flush=True), jobs=args.jobs,
        )  # fmt: skip
        for name in sorted({name for name, _ in hostile.outcomes}):
            counts = {o: n for (k, o), n in hostile.outcomes.items() if k == name}
            print(
                f"  {name}: " + ", ".join(f"{n} {o}" for o, n in sorted(counts.items()))
            )
        print(hostile.summary() + f" ({time.perf_counter() - start:.0f} s)")
        passed &= hostile.passed
    if not passed:
        print(f"reproducers: {args.findings}/")
    return 0 if passed else 1


def _graphs(args) -> bool:
    report, seconds = timed_campaign(
        args.graphs, args.malformed, args.seed, args.findings,
        log=lambda line: print(line, flush=True), jobs=args.jobs,
    )  # fmt: skip
    kinds = sorted({kind for kind, _ in report.verdicts})
    for kind in kinds:
        refused, accepted = report.verdicts[kind, False], report.verdicts[kind, True]
        print(f"  {kind}: {refused} refused, {accepted} accepted")
    print(report.summary() + f" ({seconds:.0f} s)")
    if not report.passed:
        for finding in report.findings:
            print(f"  {finding}")
    return report.passed


if __name__ == "__main__":
    sys.exit(main())
