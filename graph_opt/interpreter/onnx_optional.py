"""ONNX's Optional holding its input itself (None when it has none), for onnx's
reference evaluator (`ReferenceEvaluator(new_ops=...)`): see `onnx_overrides.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnx.reference.op_run import OpRun


def optional_kernel() -> type[OpRun]:
    # imported when first needed: onnx.reference is ~200 modules and ~10 MB
    from onnx.reference.op_run import OpRun

    class Optional(OpRun):
        op_domain = ""

        def _run(self, x=None, type=None):  # noqa: A002 (the attribute's name)
            return (x,)

        def _check_and_fix_outputs(self, res):
            # OpRun's check refuses None, the value of an optional holding nothing
            return res if res[0] is None else super()._check_and_fix_outputs(res)

    return Optional
