"""ONNX operators graph-opt imports as nn.opaque: graph-opt's interpreter and
fold-constants against onnxruntime, per operator, on onnx's backend node cases
and randomized variants (graph_opt/testing/opaque_variants.py).

Usage: python bench/opaque_ops.py [--variants N] [--no-overrides] [-v]
  --variants N     randomized variants per operator (default 40)
  --no-overrides   onnx's reference kernels alone, without graph-opt's
                   overrides and added kernels (interpreter/onnx_overrides.py):
                   shows their bugs and gaps
  -v               list every case that disagrees or errs

Columns: cases; agree / disagree with onnxruntime; err (graph-opt raised:
refused, no wrong number); skip (onnxruntime cannot run it, or random
outputs); max err (largest absolute error of the interpreter); fold (cases
fold-constants folded with constant inputs: agreeing / folded); right (who
the operator's definition says is right where they disagree: the backend
case's expected outputs, or the bug an override records).
"""

from __future__ import annotations

import argparse
import warnings
from collections import defaultdict

from graph_opt.interpreter import onnx_overrides
from graph_opt.testing.opaque_differential import (
    AGREE,
    DISAGREE,
    ERROR,
    KEPT,
    ORT_WRONG,
    UNJUDGED,
    Outcome,
    backend_opaque_cases,
    check_case,
    opaque_op_types,
)
from graph_opt.testing.opaque_variants import VARIANTS, RandomPick, variant


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variants", type=int, default=40)
    parser.add_argument("--no-overrides", action="store_true")
    parser.add_argument("-v", dest="verbose", action="store_true")
    args = parser.parse_args()
    overridden = {o.op_type: o for o in onnx_overrides.OVERRIDES}
    if args.no_overrides:
        onnx_overrides.OVERRIDES = ()  # read on each run of an nn.opaque
        onnx_overrides.MISSING = ()
    warnings.simplefilter("ignore")
    cases = list(backend_opaque_cases())
    for op_type in VARIANTS:
        cases += [variant(op_type, RandomPick(s)) for s in range(args.variants)]
    by_op: dict[str, list[Outcome]] = defaultdict(list)
    for case in cases:
        by_op[case.op_type].append(check_case(case))
    print_table(by_op, overridden)
    never = sorted(set(opaque_op_types()) - set(by_op))
    print(f"\nopaque operators without a case ({len(never)}): {', '.join(never)}")
    if args.verbose:
        for outcomes in by_op.values():
            for o in outcomes:
                if {o.interpreter, o.fold} & {DISAGREE, ERROR, ORT_WRONG}:
                    print(
                        f"  {o.case.name}: {o.interpreter} / fold {o.fold} {o.detail}"
                    )


def print_table(by_op: dict[str, list[Outcome]], overridden: dict) -> None:
    header = ("op", "cases", "agree", "disagree", "err", "skip", "max err", "fold")
    row = "{:<26} {:>5} {:>5} {:>8} {:>4} {:>4} {:>9} {:>7}  {}"
    print(row.format(*header, "right"))
    totals = defaultdict(int)
    for op_type in sorted(by_op):
        outcomes = by_op[op_type]
        states = [o.interpreter for o in outcomes]
        folded = [o for o in outcomes if o.fold not in (KEPT, UNJUDGED, ERROR)]
        fold_ok = sum(o.fold in (AGREE, ORT_WRONG) for o in folded)
        counts = {
            "cases": len(outcomes),
            "agree": states.count(AGREE),
            "disagree": states.count(DISAGREE) + states.count(ORT_WRONG),
            "err": states.count(ERROR),
            "skip": states.count(UNJUDGED),
        }
        for key, value in counts.items():
            totals[key] += value
        worst = max((o.interpreter_error for o in outcomes), default=0.0)
        fold = f"{fold_ok}/{len(folded)}" if folded else "-"
        right = _who_is_right(op_type, outcomes, overridden)
        print(row.format(op_type, *counts.values(), f"{worst:.3g}", fold, right))
    print(row.format("total", *totals.values(), "", "", ""))


def _who_is_right(op_type: str, outcomes: list[Outcome], overridden: dict) -> str:
    if ORT_WRONG in {o.interpreter for o in outcomes}:
        return "graph-opt (backend case's expected outputs)"
    if DISAGREE not in {o.interpreter for o in outcomes}:
        return ""
    if op_type in overridden:
        return f"onnxruntime (onnx {overridden[op_type].seen_in} reference bug)"
    return "not judged"


if __name__ == "__main__":
    main()
