"""ONNX's LRN as the operator's definition states it, for onnx's reference
evaluator (`ReferenceEvaluator(new_ops=...)`): see `onnx_overrides.py`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from onnx.reference.op_run import OpRun


def local_response_norm(
    x: np.ndarray, size: int, alpha: float, beta: float, bias: float
) -> np.ndarray:
    """y = x / (bias + alpha / size * square_sum) ** beta, square_sum summing
    x**2 over the channels c - floor((size-1)/2) .. c + ceil((size-1)/2) that
    exist (axis 1 of N x C x D1 ... Dk)."""
    squares = np.square(x, dtype=np.result_type(x.dtype, np.float32))
    before, after = math.floor((size - 1) / 2), math.ceil((size - 1) / 2)
    pads = [(0, 0)] * x.ndim
    pads[1] = (before, after)
    windows = np.lib.stride_tricks.sliding_window_view(
        np.pad(squares, pads), size, axis=1
    )
    square_sum = windows.sum(axis=-1)
    return (x / (bias + (alpha / size) * square_sum) ** beta).astype(x.dtype)


def lrn_kernel() -> type[OpRun]:
    # imported when first needed: onnx.reference is ~200 modules and ~10 MB
    from onnx.reference.op_run import OpRun

    class LRN(OpRun):
        op_domain = ""

        def _run(self, x, alpha=None, beta=None, bias=None, size=None):
            return (local_response_norm(x, size, alpha, beta, bias),)

    return LRN
