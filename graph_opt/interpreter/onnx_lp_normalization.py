"""ONNX's LpNormalization as the operator's definition states it, for onnx's
reference evaluator (`ReferenceEvaluator(new_ops=...)`): see `onnx_overrides.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from onnx.reference.op_run import OpRun


def lp_normalize(x: np.ndarray, axis: int, p: int) -> np.ndarray:
    """x divided by its L1 or L2 norm along `axis` (0 where the norm is 0, as
    onnx's reference has it)."""
    norm = np.linalg.norm(x, ord=p, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norm == 0, 0, x / norm).astype(x.dtype)


def lp_normalization_kernel() -> type[OpRun]:
    # imported when first needed: onnx.reference is ~200 modules and ~10 MB
    from onnx.reference.op_run import OpRun

    class LpNormalization(OpRun):
        op_domain = ""

        def _run(self, x, axis=None, p=None):
            return (lp_normalize(x, axis, p),)

    return LpNormalization
