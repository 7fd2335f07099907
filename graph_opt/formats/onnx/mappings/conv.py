"""ONNX mappings of convolutions."""

from __future__ import annotations

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.conv import ConvOp, ConvTransposeOp, resolve_pads
from graph_opt.dialects.nn.shapes import DYN
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
    e.node(
        "Conv",
        list(op.operands),
        [op.output],
        e.props_to_attrs(_dilated_same(op, attrs)),
    )


def _dilated_same(op: ConvOp, attrs: dict) -> dict:
    """onnxruntime refuses auto_pad SAME with dilations: the pads it stands
    for instead, when the spatial sizes are static."""
    strides, dilations, pads, auto_pad = op.window_props(
        op.properties, op.spatial_rank()
    )
    if not auto_pad.startswith("SAME") or dilations == [1] * len(dilations):
        return attrs
    sizes = list(op.operands[0].type.get_shape()[2:])
    kernel = list(op.operands[1].type.get_shape()[2:])
    explicit = resolve_pads(auto_pad, pads, sizes, kernel, strides, dilations)
    if explicit is None or DYN in kernel:
        return attrs
    del attrs["auto_pad"]
    return attrs | {"pads": i64_array(explicit)}


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
