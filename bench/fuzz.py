"""A long fuzzing campaign of graph-opt (graph_opt/testing/fuzz): random valid
ONNX graphs and TensorFlow GraphDefs through every pass, against onnxruntime and
the interpreter; then malformed inputs made from them through `graph-opt`.

Prints `fuzz[PASS]: N graphs, K mismatches, C crashes` (and the malformed-input
counts), or FAIL with each finding; reproducers go to --findings.

Usage: python bench/fuzz.py [--graphs 500] [--malformed 300] [--seed S] [--findings DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graph_opt.testing.fuzz.campaign import timed_campaign


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=500)
    parser.add_argument("--malformed", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--findings", type=Path, default=Path("fuzz-findings"))
    args = parser.parse_args()
    report, seconds = timed_campaign(
        args.graphs, args.malformed, args.seed, args.findings,
        log=lambda line: print(line, flush=True),
    )  # fmt: skip
    kinds = sorted({kind for kind, _ in report.verdicts})
    for kind in kinds:
        refused, accepted = report.verdicts[kind, False], report.verdicts[kind, True]
        print(f"  {kind}: {refused} refused, {accepted} accepted")
    print(report.summary() + f" ({seconds:.0f} s)")
    if not report.passed:
        for finding in report.findings:
            print(f"  {finding}")
        print(f"reproducers: {args.findings}/")
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
