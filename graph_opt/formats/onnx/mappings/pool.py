"""ONNX mappings of pooling."""

from __future__ import annotations

from graph_opt.dialects.nn.pool import AvgPoolOp, GlobalAvgPoolOp, MaxPoolOp
from graph_opt.formats.onnx.op_table import check_channels_first, exporter, importer

WINDOW_ATTRS = ("kernel_shape", "strides", "pads", "auto_pad", "ceil_mode")


@importer("MaxPool")
def import_max_pool(b, node, inputs):
    # The Indices output has no nn form.
    if len(node.output) > 1 or inputs[0] is None:
        return None
    props = b.props_from(node, allowed=(*WINDOW_ATTRS, "dilations"))
    return b.create(MaxPoolOp, [inputs[0]], props)


@importer("AveragePool")
def import_avg_pool(b, node, inputs):
    dilations = b.attrs(node).get("dilations")
    if inputs[0] is None or (dilations and set(dilations) != {1}):
        return None
    props = b.props_from(node, allowed=(*WINDOW_ATTRS, "count_include_pad"))
    return b.create(AvgPoolOp, [inputs[0]], props)


@importer("GlobalAveragePool")
def import_global_avg_pool(b, node, inputs):
    if inputs[0] is None:
        return None
    return b.create(GlobalAvgPoolOp, [inputs[0]], {})


@exporter(MaxPoolOp, AvgPoolOp)
def export_pool(e, op):
    check_channels_first(e, op)
    attrs = {k: v for k, v in op.properties.items() if k != "data_layout"}
    op_type = "MaxPool" if isinstance(op, MaxPoolOp) else "AveragePool"
    e.node(op_type, [op.input], [op.output], e.props_to_attrs(attrs))


@exporter(GlobalAvgPoolOp)
def export_global_avg_pool(e, op: GlobalAvgPoolOp):
    check_channels_first(e, op)
    e.node("GlobalAveragePool", [op.input], [op.output])
