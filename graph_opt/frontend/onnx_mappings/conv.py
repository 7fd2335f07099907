"""ONNX mappings of convolutions."""

from __future__ import annotations

from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.frontend.onnx_op_table import exporter, register_simple

register_simple("Conv", ConvOp, ignored=("kernel_shape",))


@exporter(ConvOp)
def export_conv(e, op: ConvOp):
    if op.layout != "NCHW":
        e.unsupported(
            op, "ONNX convolutions are channels-first: run convert-layout first"
        )
    attrs = {k: v for k, v in op.properties.items() if k != "data_layout"}
    e.node("Conv", list(op.operands), [op.output], e.props_to_attrs(attrs))
