"""ONNX's Scatter (deprecated at opset 11 for ScatterElements, the same
computation), which onnx's reference evaluator lacks: see `onnx_overrides.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnx.reference.op_run import OpRun


def scatter_kernel() -> type[OpRun]:
    # imported when first needed: onnx.reference is ~200 modules and ~10 MB
    from onnx.reference.op_run import OpRun
    from onnx.reference.ops.op_scatter_elements import scatter_elements

    class Scatter(OpRun):
        op_domain = ""

        def _run(self, data, indices, updates, axis=0):
            return (scatter_elements(data, indices, updates, axis=axis),)

    return Scatter
