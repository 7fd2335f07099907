"""ONNX mappings of shape ops."""

from __future__ import annotations

from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.frontend.onnx_op_table import exporter, importer


@importer("Reshape")
def import_reshape(b, node, inputs):
    if b.opset < 5 or None in inputs:
        return None
    return b.create(ReshapeOp, inputs, b.props_from(node, allowed=("allowzero",)))


@exporter(ReshapeOp)
def export_reshape(e, op: ReshapeOp):
    e.node("Reshape", list(op.operands), [op.output], e.props_to_attrs(op.properties))
