"""ONNX mappings of convolutions."""

from __future__ import annotations

from graph_opt.dialects.nn.conv import ConvOp, ConvTransposeOp
from graph_opt.formats.onnx.op_table import (
    check_channels_first,
    exporter,
    importer,
    register_simple,
)

CONV_TRANSPOSE_ATTRS = (
    "strides",
    "pads",
    "dilations",
    "group",
    "output_padding",
    "output_shape",
    "auto_pad",
)

register_simple("Conv", ConvOp, ignored=("kernel_shape",))


@exporter(ConvOp)
def export_conv(e, op: ConvOp):
    check_channels_first(e, op)
    attrs = {k: v for k, v in op.properties.items() if k != "data_layout"}
    e.node("Conv", list(op.operands), [op.output], e.props_to_attrs(attrs))


@importer("ConvTranspose")
def import_conv_transpose(b, node, inputs):
    if None in inputs[:2]:
        return None
    props = b.props_from(node, allowed=CONV_TRANSPOSE_ATTRS)
    return b.create(ConvTransposeOp, [v for v in inputs if v is not None], props)


@exporter(ConvTransposeOp)
def export_conv_transpose(e, op: ConvTransposeOp):
    check_channels_first(e, op)
    attrs = {k: v for k, v in op.properties.items() if k != "data_layout"}
    e.node("ConvTranspose", list(op.operands), [op.output], e.props_to_attrs(attrs))
