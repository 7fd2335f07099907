"""ONNX mappings of normalizations."""

from __future__ import annotations

from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.frontend.onnx_op_table import exporter, importer


@importer("BatchNormalization")
def import_batch_norm(b, node, inputs):
    attrs = b.attrs(node)
    if len(node.output) > 1 and any(node.output[1:]) or attrs.get("training_mode", 0):
        return None
    if None in inputs[:5]:
        return None
    props = {"epsilon": b.f32(attrs.get("epsilon", 1e-5))}
    return b.create(BatchNormOp, inputs[:5], props)


@exporter(BatchNormOp)
def export_batch_norm(e, op: BatchNormOp):
    if op.layout != "NCHW":
        e.unsupported(op, "ONNX batch norm is channels-first: run convert-layout first")
    e.node(
        "BatchNormalization",
        list(op.operands),
        [op.output],
        e.attrs(epsilon=op.epsilon.value.data),
    )
