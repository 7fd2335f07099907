"""Mapped ONNX operators on special values: graph-opt's interpreter, and the
constants fold-constants makes (exported to ONNX and read back), against
onnxruntime, element by element.

Each difference is classified: within float tolerance (a few ulps, or the
sign of a zero), explained by one of graph-opt's documented rules for what
the operator's definition leaves open (`special_rules.py`), or a
disagreement. Needs onnxruntime (imported lazily).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from graph_opt.dialects.nn.dtypes import float_info, is_float_dtype
from graph_opt.formats.onnx.conformance import run_onnxruntime
from graph_opt.formats.onnx.importer import import_model
from graph_opt.testing.opaque_differential import Case, constant_inputs
from graph_opt.testing.special_rules import rule_for

AGREE = "agree"
TOLERANCE = "tolerance"
"""Equal but for float rounding (a few ulps) or the sign of a zero."""
RULE = "rule"
"""Different where the definition leaves the result open; graph-opt follows
a documented rule there (`special_rules.RULES`)."""
DISAGREE = "disagree"
ERROR = "error"
"""graph-opt raised (a refusal: no wrong number)."""
KEPT = "kept"
"""fold-constants left the op unfolded."""
UNJUDGED = "unjudged"
"""onnxruntime cannot run the case."""

ULPS = 8
"""Float tolerance in units of the type's epsilon (transcendentals differ
by an ulp or two between libms; softmax and normalizations by a few);
float64 at least 1e-13 (onnxruntime's vectorized float64 functions)."""

SUMMING = frozenset({
    "AveragePool", "BatchNormalization", "Conv", "CumSum", "Gemm",
    "GlobalAveragePool", "LayerNormalization", "MatMul", "ReduceMean", "Resize",
    "ReduceProd", "ReduceSum", "Softmax",
})  # fmt: skip
"""Operators whose results sum terms in an order the definition leaves
open: their tolerance is relative to the output's largest finite magnitude."""

UNIT_SCALE = frozenset({
    "Elu", "Selu", "HardSwish", "HardSigmoid", "Mish", "Sigmoid", "Tanh",
    "Softsign", "Erf", "Gelu",
})  # fmt: skip
"""Functions of order 1 near 0 (exp(x) - 1, x * (x / 6 + 0.5), x * erf(x))
or bounded by 1: their tolerance is absolute, relative to 1 (onnxruntime's
exp(x) - 1 is 0 where graph-opt's expm1(x) is -1e-25; its float32 Sigmoid,
a polynomial, gives 1.54525e-4 at -8.775, the formula 1.54539e-4)."""

MOVING = frozenset({
    "Concat", "Constant", "ConstantOfShape", "Dropout", "Expand", "Flatten",
    "Gather", "GatherElements", "GatherND", "Identity", "Pad", "Reshape",
    "Slice", "Split", "Squeeze", "Tile", "Transpose", "Unsqueeze", "Where",
})  # fmt: skip
"""Operators that only move values: a NaN's payload and sign must survive
them (elsewhere the definition leaves a NaN's bits open)."""

ORDER = (DISAGREE, RULE, TOLERANCE, AGREE)


@dataclass(frozen=True)
class Verdict:
    state: str
    detail: str = ""


@dataclass(frozen=True)
class Outcome:
    case: Case
    interpreter: Verdict
    fold: Verdict


def check_case(case: Case) -> Outcome:
    """`case` through graph-opt's interpreter and through fold-constants (with
    constant inputs, the folded constants exported), against onnxruntime."""
    from graph_opt.interpreter import run_function

    try:
        expected = [np.asarray(x) for x in run_onnxruntime(case.model, case.inputs)]
    except Exception as e:  # onnxruntime does not run every operator and type
        gone = Verdict(UNJUDGED, f"onnxruntime: {e}"[:200])
        return Outcome(case, gone, gone)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            actual = run_function(import_model(case.model), list(case.inputs))
            interpreter = judge(case, expected, actual)
        except Exception as e:  # a refusal or a failure: no wrong number
            interpreter = Verdict(ERROR, _first_line(e))
        fold = _check_fold(case, expected)
    return Outcome(case, interpreter, fold)


def _check_fold(case: Case, expected: list[np.ndarray]) -> Verdict:
    """fold-constants on the model with constant inputs; the module exported to
    ONNX and run by onnxruntime (which then only reads the constants)."""
    from graph_opt.dialects.nn.constant import ConstantOp
    from graph_opt.formats.onnx.exporter import export_module
    from graph_opt.passes.fold_constants import FoldConstantsPass
    from graph_opt.passes.fold_constants.fold_constants import fold_constants

    try:
        module = import_model(constant_inputs(case))
        fold_constants(module, FoldConstantsPass.max_size)
    except Exception as e:  # the interpreter check shows an import failure
        return Verdict(ERROR, _first_line(e))
    returned = next(op for op in module.walk() if op.name == "func.return")
    if not all(isinstance(v.owner, ConstantOp) for v in returned.operands):
        return Verdict(KEPT)
    try:
        exported = run_onnxruntime(export_module(module), [])
    except Exception as e:  # an export that onnxruntime refuses is a failure
        return Verdict(DISAGREE, f"export: {_first_line(e)}")
    return judge(case, expected, [np.asarray(x) for x in exported])


def judge(case: Case, expected: list, actual: list) -> Verdict:
    """The worst class of difference over every output element."""
    if len(expected) != len(actual):
        return Verdict(DISAGREE, f"{len(actual)} outputs, not {len(expected)}")
    worst = Verdict(AGREE)
    for index, (want, got) in enumerate(zip(expected, actual)):
        want, got = np.asarray(want), np.asarray(got)
        if want.shape != got.shape or want.dtype != got.dtype:
            return Verdict(
                DISAGREE,
                f"output {index}: {got.shape} {got.dtype}, not {want.shape} {want.dtype}",
            )
        state, where = classify(
            want, got, _scale(case.op_type, want), case.op_type in MOVING
        )
        if state == DISAGREE:
            rule = rule_for(case)
            if rule is not None and rule.explains(case, want, got, where):
                state = RULE
        if ORDER.index(state) < ORDER.index(worst.state):
            worst = Verdict(state, _show(case, index, want, got, where))
    return worst


def _scale(op_type: str, want: np.ndarray) -> float:
    if op_type in UNIT_SCALE:
        return 1.0  # np.isclose adds the relative tolerance for large values
    if op_type in SUMMING and is_float_dtype(want.dtype):
        finite = np.abs(want[np.isfinite(want)]).astype(np.float64)
        return float(np.max(finite, initial=0.0))
    return 0.0


def classify(
    want: np.ndarray, got: np.ndarray, scale: float = 0.0, payloads: bool = False
) -> tuple[str, np.ndarray]:
    """AGREE, TOLERANCE or DISAGREE, and where the elements differ; floats
    within ULPS of each other, or of `scale`, are TOLERANCE; with `payloads`,
    NaNs must have the same bits."""
    if not is_float_dtype(want.dtype):
        differ = want != got
        return (DISAGREE if differ.any() else AGREE), differ
    both_nan = np.isnan(want) & np.isnan(got)
    if payloads:
        bits = f"u{want.dtype.itemsize}"
        both_nan &= want.view(bits) == got.view(bits)
    differ = ~both_nan & (want != got)
    zero_sign = (want == 0) & (got == 0) & (np.signbit(want) != np.signbit(got))
    info = float_info(want.dtype)
    w, g = want.astype(np.float64), got.astype(np.float64)
    rtol = max(ULPS * float(info.eps), 1e-13)
    atol = max(float(info.smallest_normal), rtol * scale)
    close = np.isclose(g, w, rtol=rtol, atol=atol)
    close &= np.isfinite(w) == np.isfinite(g)
    if (differ & ~close).any():
        return DISAGREE, differ & ~close
    if differ.any() or zero_sign.any():
        return TOLERANCE, differ | zero_sign
    return AGREE, differ


def _show(case: Case, index: int, want, got, where) -> str:
    if not np.any(where):
        return ""
    at = np.argwhere(np.atleast_1d(where))[0]
    w, g = np.atleast_1d(want)[tuple(at)], np.atleast_1d(got)[tuple(at)]
    return f"output {index} at {list(at)}: graph-opt {g!r}, onnxruntime {w!r}"


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:200]
