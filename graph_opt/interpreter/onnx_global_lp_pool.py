"""ONNX's GlobalLpPool, which onnx's reference evaluator lacks: see
`onnx_overrides.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from onnx.reference.op_run import OpRun


def global_lp_pool_kernel() -> type[OpRun]:
    # imported when first needed: onnx.reference is ~200 modules and ~10 MB
    from onnx.reference.op_run import OpRun

    class GlobalLpPool(OpRun):
        op_domain = ""

        def _run(self, x, p=2):
            spatial = tuple(range(2, x.ndim))
            total = np.sum(np.abs(x) ** p, axis=spatial, keepdims=True)
            return ((total ** (1.0 / p)).astype(x.dtype),)

    return GlobalLpPool
