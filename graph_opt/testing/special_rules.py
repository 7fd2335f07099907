"""graph-opt's rules where an ONNX operator's definition leaves the result on
special values open and onnxruntime's result is not one graph-opt follows
(onnxruntime inconsistent, or TensorFlow's semantics of the same nn op).
Documented in docs/guarantees.md ("Special values")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Rule:
    op_types: tuple[str, ...]
    text: str
    explains: Callable[..., bool]
    """(case, onnxruntime's output, graph-opt's output, where they differ) ->
    whether every difference is one the rule decides."""


def _nan_propagated(case, want, got, differ) -> bool:
    return bool(np.isnan(got[differ]).all())


def _overflow_only(case, want, got, differ) -> bool:
    """Each difference has an infinity or NaN on one side and a different one
    or a number on the other: an intermediate overflowed in one of them."""
    return bool((~np.isfinite(want[differ]) | ~np.isfinite(got[differ])).all())


def _nan_from_onnxruntime_float16(case, want, got, differ) -> bool:
    x = case.inputs[0]
    return x.dtype == np.float16 and bool(np.isnan(x[differ]).all())


def _payload_only(case, want, got, differ) -> bool:
    return bool((np.isnan(want[differ]) & np.isnan(got[differ])).all())


def _zero_factor_nan(case, want, got, differ) -> bool:
    """A zero alpha or beta, and NaN on one side only (0 x inf, or a NaN
    operand the zero factor multiplies)."""
    factors = {a.name: a.f for a in case.model.graph.node[0].attribute}
    if factors.get("alpha", 1.0) and factors.get("beta", 1.0):
        return False
    return bool((np.isnan(want[differ]) != np.isnan(got[differ])).all())


RULES: tuple[Rule, ...] = (
    Rule(
        ("Pad",),
        "a NaN fill value is a float attribute: NaN, its payload not kept "
        "(values moved from the input keep theirs)",
        _payload_only,
    ),
    Rule(
        ("Tile", "Dropout"),
        "a NaN keeps its payload; onnxruntime's float16 kernels may give the "
        "default NaN (0x7e00) for a NaN with a payload",
        _payload_only,
    ),
    Rule(
        ("ReduceMax", "ReduceMin"),
        "NaN propagates (as TensorFlow's reduce_max and onnx's reference); "
        "onnxruntime skips NaN unless every value is NaN",
        _nan_propagated,
    ),
    Rule(
        ("MaxPool",),
        "NaN in a window gives NaN; onnxruntime's result depends on where in "
        "the window the NaN is, TensorFlow skips NaN (an all-NaN window gives "
        "-3.4e38)",
        _nan_propagated,
    ),
    Rule(
        ("BatchNormalization",),
        "computed in float64 as (x - mean) * scale / sqrt(var + epsilon) + B "
        "and rounded once; onnxruntime's float32 intermediates can overflow "
        "(inf where graph-opt has a number, NaN where it has inf)",
        _overflow_only,
    ),
    Rule(
        ("Gemm",),
        "a zero alpha or beta multiplies its operand as the formula says "
        "(0 x inf and 0 x NaN are NaN); onnxruntime gives 0 in some of these "
        "cases (BLAS skips an operand a zero factor multiplies) and NaN in others",
        _zero_factor_nan,
    ),
    Rule(
        ("Sign",),
        "Sign(NaN) is NaN (onnxruntime's float32 and float64 kernels, "
        "TensorFlow); onnxruntime's float16 kernel gives 0",
        _nan_from_onnxruntime_float16,
    ),
)


def rule_for(case) -> Rule | None:
    """The rule for `case`'s operator, if it has one."""
    return next((r for r in RULES if case.op_type in r.op_types), None)


def _nan_only_in_graph_opt(case, want, got, differ) -> bool:
    """graph-opt's NaN where TensorFlow's result is a number."""
    return bool(np.isnan(got[differ]).all())


def _flushed_quotient(case, want, got, differ) -> bool:
    """TensorFlow's -0 where graph-opt's floor of a negative subnormal quotient is -1."""
    return bool(((want[differ] == 0) & (got[differ] == -1)).all())


TF_RULES: tuple[Rule, ...] = (
    Rule(
        ("FloorDiv",),
        "a subnormal quotient is floored as it is; TensorFlow flushes it to "
        "zero first (floor(1.2e-38 / -2.5) is -1 in graph-opt, -0 in TensorFlow)",
        _flushed_quotient,
    ),
    Rule(
        ("MaxPool",),
        "NaN in a window gives NaN; TensorFlow skips NaN (an all-NaN window "
        "gives -3.4e38)",
        _nan_only_in_graph_opt,
    ),
    Rule(
        ("Softmax",),
        "NaN in a row makes the row NaN; TensorFlow's row maximum skips NaN, "
        "so only the NaN (and, beside an inf, every) position is NaN",
        _nan_only_in_graph_opt,
    ),
)
"""Rules for TensorFlow ops (by TensorFlow op type) where graph-opt's nn op
keeps ONNX's semantics."""
