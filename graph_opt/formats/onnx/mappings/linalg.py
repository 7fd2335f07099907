"""ONNX mappings of matrix products."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp
from graph_opt.formats.onnx.op_table import exporter, importer, register_simple

register_simple("MatMul", MatMulOp)

GEMM_RENAMES = {
    "alpha": "alpha",
    "beta": "beta",
    "transA": "trans_a",
    "transB": "trans_b",
}


@importer("Gemm")
def import_gemm(b, node, inputs):
    # Before opset 7 a `broadcast` attribute decides how C broadcasts.
    if b.opset < 7 or None in inputs[:2]:
        return None
    props = {
        GEMM_RENAMES[name]: value
        for name, value in b.props_from(node, allowed=tuple(GEMM_RENAMES)).items()
    }
    return b.create(GemmOp, [v for v in inputs if v is not None], props)


@exporter(GemmOp)
def export_gemm(e, op: GemmOp):
    if e.opset < 7:
        e.unsupported(op, f"Gemm before opset 7 ({e.opset}) broadcasts C differently")
    back = {prop: name for name, prop in GEMM_RENAMES.items()}
    inputs = list(op.operands)
    if op.c is None and e.opset < 11:
        # C is required before opset 11: add a zero scalar.
        inputs.append(e.initializer(np.zeros((), e.numpy_dtype(op.a)), "gemm_c"))
    attrs = {back[k]: v for k, v in op.properties.items()}
    e.node("Gemm", inputs, [op.output], e.props_to_attrs(attrs))
