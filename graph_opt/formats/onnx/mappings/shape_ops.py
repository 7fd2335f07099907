"""ONNX mappings of shape ops."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn import shape_ops as s
from graph_opt.dialects.nn.base import i64_array, int_list
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.formats.onnx.mappings.tensor_ops import constant_ints, slice_node
from graph_opt.formats.onnx.op_table import exporter, importer, register_simple

register_simple("Flatten", s.FlattenOp)
register_simple("Size", s.SizeOp)
register_simple("ConstantOfShape", s.ConstantOfShapeOp)


@importer("Reshape")
def import_reshape(b, node, inputs):
    if b.opset < 5 or None in inputs:
        return None
    return b.create(s.ReshapeOp, inputs, b.props_from(node, allowed=("allowzero",)))


@exporter(s.ReshapeOp)
def export_reshape(e, op: s.ReshapeOp):
    e.node("Reshape", list(op.operands), [op.output], e.props_to_attrs(op.properties))


@importer("Squeeze", "Unsqueeze")
def import_axes_op(b, node, inputs):
    op_class = s.SqueezeOp if node.op_type == "Squeeze" else s.UnsqueezeOp
    if not inputs or inputs[0] is None:
        return None
    if b.opset < 13:
        props = b.props_from(node, allowed=("axes",))
    elif len(inputs) > 1 and inputs[1] is not None:
        axes = constant_ints(b, inputs[1])
        if axes is None:
            return None
        props = {"axes": i64_array(axes)}
    else:
        props = {}
    return b.create(op_class, inputs[:1], props)


@exporter(s.SqueezeOp, s.UnsqueezeOp)
def export_axes_op(e, op: s.AxesOp):
    op_type = "Squeeze" if isinstance(op, s.SqueezeOp) else "Unsqueeze"
    axes = int_list(op.properties, "axes")
    if axes is None:
        e.node(op_type, [op.input], [op.output])
    elif e.opset < 13:
        e.node(op_type, [op.input], [op.output], e.attrs(axes=list(axes)))
    else:
        axes_name = e.initializer(np.array(axes, np.int64), "axes")
        e.node(op_type, [op.input, axes_name], [op.output])


@importer("Shape")
def import_shape(b, node, inputs):
    if inputs[0] is None:
        return None
    return b.create(s.ShapeOp, inputs, b.props_from(node, allowed=("start", "end")))


@exporter(s.ShapeOp)
def export_shape(e, op: s.ShapeOp):
    """Shape with start/end, which ONNX has from opset 15; before, Shape then Slice."""
    if e.opset >= 15 or (op.start is None and op.end is None):
        e.node("Shape", [op.input], [op.output], e.props_to_attrs(op.properties))
        return
    x = ranked(op.input)
    if x is None:
        e.unsupported(
            op, f"Shape with start/end at opset {e.opset} needs a ranked input"
        )
    dims = op.dims(x.get_num_dims())
    whole = e.fresh("shape")
    e.node("Shape", [op.input], [whole])
    slice_node(e, whole, op.output, [dims.start], [dims.stop], [0])


@exporter(s.RankOp)
def export_rank(e, op: s.RankOp):
    """ONNX has no Rank: the size of the shape."""
    shape = e.fresh("shape")
    e.node("Shape", [op.input], [shape])
    e.node("Size", [shape], [op.output])
