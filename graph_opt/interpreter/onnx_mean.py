"""ONNX's Mean with multidirectional broadcasting, for onnx's reference
evaluator (`ReferenceEvaluator(new_ops=...)`): see `onnx_overrides.py`."""

from __future__ import annotations

from functools import reduce
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from onnx.reference.op_run import OpRun


def mean_kernel() -> type[OpRun]:
    # imported when first needed: onnx.reference is ~200 modules and ~10 MB
    from onnx.reference.op_run import OpRun

    class Mean(OpRun):
        op_domain = ""

        def _run(self, *args):
            total = reduce(np.add, args)
            return ((total / len(args)).astype(args[0].dtype),)

    return Mean
