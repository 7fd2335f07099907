"""Special values (NaN with payloads, +-inf, +-0, subnormals, extremes,
whole numbers past 2^24 and 2^53, integer minima and maxima) through
graph-opt's own kernels, against the frameworks:

- onnx: every ONNX operator the importer maps to an nn op
  (graph_opt/testing/special_cases.py), one-node models with random
  special-value inputs, through the interpreter and through fold-constants
  (constant inputs; the folded constants exported and run) against
  onnxruntime;
- onnx-bf16, onnx-f8*: the operators whose bfloat16 (float8) result is
  their float32 result rounded once (graph_opt/testing/special_narrow_floats.py),
  inputs of that type, through the interpreter against onnxruntime's
  float32 result rounded to the type (NaN payloads kept);
- tensorflow: the single-op GraphDef that TensorFlow ran
  (tests/formats/tensorflow/fixtures/special_ops.pbtxt) against
  TensorFlow's outputs.

Usage: python bench/special_values.py [--cases N] [-v]
  --cases N   random cases per ONNX operator (default 20)
  -v          list each case that disagrees, and the rules' cases

Columns: cases (for onnx: interpreter and fold-constants each count); agree
(equal, NaN equal to NaN); tol (a few ulps, or the sign of a zero); disagree;
rule (different where the definition leaves it open: graph-opt follows the
rule printed below, docs/guarantees.md); err (graph-opt refused: no wrong
number); kept (fold-constants left the op); skip (onnxruntime cannot run it).
"""

from __future__ import annotations

import argparse
import warnings
from collections import Counter, defaultdict
from pathlib import Path

from graph_opt.testing.special_cases import SPECIAL_CASES, special_case
from graph_opt.testing.special_differential import (
    AGREE,
    DISAGREE,
    ERROR,
    KEPT,
    RULE,
    TOLERANCE,
    UNJUDGED,
    check_case,
)
from graph_opt.testing.special_narrow_floats import (
    NARROW_FLOATS,
    check_narrow_case,
    narrow_case,
)
from graph_opt.testing.special_rules import RULES, TF_RULES
from graph_opt.testing.special_tensorflow import FLUSH_RULE, check_fixture
from graph_opt.testing.special_values import RandomPick

FIXTURE = (
    Path(__file__).parents[1] / "tests/formats/tensorflow/fixtures/special_ops.pbtxt"
)
STATES = (AGREE, TOLERANCE, DISAGREE, RULE, ERROR, KEPT, UNJUDGED)
ROW = "{:<16} {:<22} {:>5} {:>5} {:>5} {:>8} {:>4} {:>4} {:>4} {:>4}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("-v", dest="verbose", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(ROW.format("framework", "op", "cases", "agree", "tol", "disagree",
                     "rule", "err", "kept", "skip"))  # fmt: skip
    totals: Counter = Counter()
    listed = []
    for name in sorted(SPECIAL_CASES):
        counts: Counter = Counter()
        for seed in range(args.cases):
            outcome = check_case(special_case(name, RandomPick(seed)))
            for verdict in (outcome.interpreter, outcome.fold):
                counts[verdict.state] += 1
                if verdict.state in (DISAGREE, RULE):
                    listed.append(
                        f"{outcome.case.name}: {verdict.state} {verdict.detail}"
                    )
        totals += counts
        print_row("onnx", name, counts)
    print_row("onnx", "total", totals)
    for dtype, names in NARROW_FLOATS.items():
        print_narrow_rows(dtype, names, args.cases, listed)
    tf_counts: dict[str, Counter] = defaultdict(Counter)
    for o in check_fixture(FIXTURE):
        tf_counts[o.op_type][o.verdict.state] += 1
        if o.verdict.state in (DISAGREE, RULE):
            listed.append(f"tensorflow {o.name}: {o.verdict.state} {o.verdict.detail}")
    for op_type in sorted(tf_counts):
        print_row("tensorflow", op_type, tf_counts[op_type])
    print_row("tensorflow", "total", sum(tf_counts.values(), Counter()))
    print("\nrules:")
    for rule in RULES:
        print(f"  onnx {'/'.join(rule.op_types)}: {rule.text}")
    for rule in TF_RULES:
        print(f"  tensorflow {'/'.join(rule.op_types)}: {rule.text}")
    print(f"  tensorflow (any op): {FLUSH_RULE}")
    if args.verbose:
        print("\n" + "\n".join(listed))


def print_narrow_rows(dtype, names, cases: int, listed: list[str]) -> None:
    """`dtype` inputs against onnxruntime's float32 result rounded to it
    (interpreter only: fold-constants' export would need onnxruntime to read
    the type)."""
    framework = "onnx-" + dtype.name.replace("float8_", "f8").replace(
        "bfloat16", "bf16"
    )
    totals: Counter = Counter()
    for name in names:
        counts: Counter = Counter()
        for seed in range(cases):
            case = narrow_case(name, dtype, seed)
            verdict = check_narrow_case(case, dtype)
            counts[verdict.state] += 1
            if verdict.state in (DISAGREE, RULE):
                listed.append(f"{case.name}: {verdict.state} {verdict.detail}")
        totals += counts
        print_row(framework, name, counts)
    print_row(framework, "total", totals)


def print_row(framework: str, op: str, counts: Counter) -> None:
    print(ROW.format(framework, op, sum(counts.values()), *(counts[s] for s in STATES)))


if __name__ == "__main__":
    main()
