"""TensorFlow ops on special values: graph-opt's interpreter on a GraphDef
that TensorFlow ran (tests/formats/tensorflow/make_special_fixtures.py
writes it with TensorFlow's outputs), output by output, in the classes of
`special_differential.py`.

TensorFlow's CPU kernels treat subnormal inputs as zero and flush subnormal
results to zero; graph-opt keeps IEEE subnormals (as onnxruntime does). A
difference that disappears when graph-opt's inputs and outputs are flushed
the same way is classified under that rule (FLUSH_RULE).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graph_opt.dialects.nn.dtypes import float_info, is_float_dtype
from graph_opt.testing.special_differential import (
    DISAGREE,
    RULE,
    Verdict,
    classify,
)
from graph_opt.testing.special_rules import TF_RULES

FLUSH_RULE = "TensorFlow flushes subnormal inputs and results to zero"


@dataclass(frozen=True)
class TfOutcome:
    op_type: str
    name: str
    verdict: Verdict


def flush_subnormals(x: np.ndarray) -> np.ndarray:
    """Subnormal floats as zeros of their sign (TensorFlow's CPU mode)."""
    if not is_float_dtype(x.dtype):
        return x
    tiny = float_info(x.dtype).smallest_normal
    return np.where(np.abs(x) < tiny, np.copysign(x.dtype.type(0), x), x)


def check_fixture(path: Path) -> list[TfOutcome]:
    """Every output of the GraphDef at `path` (with its .npz) against TensorFlow's."""
    from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
    from graph_opt.interpreter import run_function

    data = np.load(path.with_suffix(".npz"))
    names = [str(n) for n in data["outputs"]]
    module = import_graph_def(load_graph_def(str(path)), outputs=names)
    inputs = {k[3:]: data[k] for k in data.files if k.startswith("in:")}
    flushed_inputs = {k: flush_subnormals(v) for k, v in inputs.items()}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        actual = run_function(module, inputs)
        flushed = [flush_subnormals(x) for x in run_function(module, flushed_inputs)]
    outcomes = []
    for n, (op_type, name) in enumerate(zip(data["ops"], names)):
        want = data[f"out:{n}"]
        verdict = _judge(str(op_type), want, actual[n], flushed[n])
        outcomes.append(TfOutcome(str(op_type), name, verdict))
    return outcomes


def _judge(op_type: str, want, got, flushed) -> Verdict:
    if want.shape != got.shape or want.dtype != got.dtype:
        return Verdict(
            DISAGREE, f"{got.shape} {got.dtype}, not {want.shape} {want.dtype}"
        )
    state, where = classify(want, got, _scale(op_type, want))
    if state != DISAGREE:
        return Verdict(state)
    flushed_state, flushed_where = classify(want, flushed, _scale(op_type, want))
    if flushed_state != DISAGREE:
        return Verdict(RULE, FLUSH_RULE)
    rule = next((r for r in TF_RULES if op_type in r.op_types), None)
    if rule is not None and rule.explains(None, want, flushed, flushed_where):
        return Verdict(RULE, rule.text)
    at = tuple(np.argwhere(np.atleast_1d(where))[0])
    shown = (
        f"graph-opt {np.atleast_1d(got)[at]!r}, TensorFlow {np.atleast_1d(want)[at]!r}"
    )
    return Verdict(DISAGREE, f"at {list(at)}: {shown}")


def _scale(op_type: str, want: np.ndarray) -> float:
    if op_type in ("Sum", "Mean", "Prod", "MatMul", "AvgPool", "Softmax"):
        finite = np.abs(want[np.isfinite(want)]).astype(np.float64)
        return float(np.max(finite, initial=0.0))
    return 1.0 if op_type in ("Elu", "Selu", "Expm1") else 0.0
