"""ONNX mappings of reductions: axes are an attribute in early opsets, an input later."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn import reduce as r
from graph_opt.dialects.nn.base import i64_array, int_list, int_value
from graph_opt.frontend.onnx_op_table import exporter, importer

OP_TYPES = {
    r.ReduceMeanOp: "ReduceMean",
    r.ReduceSumOp: "ReduceSum",
    r.ReduceMaxOp: "ReduceMax",
    r.ReduceMinOp: "ReduceMin",
}
AXES_INPUT_OPSET = {"ReduceSum": 13}
"""The opset from which `axes` is an input (18 unless listed)."""


def axes_input_opset(op_type: str) -> int:
    return AXES_INPUT_OPSET.get(op_type, 18)


@importer(*OP_TYPES.values())
def import_reduce(b, node, inputs):
    op_class = next(c for c, t in OP_TYPES.items() if t == node.op_type)
    if inputs[0] is None:
        return None
    props = b.props_from(node, allowed=("keepdims", "noop_with_empty_axes"))
    if b.opset < axes_input_opset(node.op_type):
        props.update(b.props_from(node, allowed=("axes",)))
    elif len(inputs) > 1 and inputs[1] is not None:
        axes = b.constant_value(inputs[1])
        if axes is None:
            return None
        props["axes"] = i64_array([int(a) for a in axes.reshape(-1)])
    return b.create(op_class, [inputs[0]], props)


@exporter(*OP_TYPES)
def export_reduce(e, op: r.ReduceOp):
    op_type = OP_TYPES[type(op)]
    axes = list(int_list(op.properties, "axes") or ())
    noop = int_value(op.properties, "noop_with_empty_axes", 0)
    keepdims = int_value(op.properties, "keepdims", 1)
    if e.opset < axes_input_opset(op_type):
        if not axes and noop:
            e.node("Identity", [op.input], [op.output])
            return
        attrs = e.attrs(axes=axes or None, keepdims=keepdims)
        e.node(op_type, [op.input], [op.output], attrs)
        return
    inputs = [op.input]
    if axes:
        inputs.append(e.initializer(np.array(axes, np.int64), "axes"))
    attrs = e.attrs(keepdims=keepdims, noop_with_empty_axes=noop or None)
    e.node(op_type, inputs, [op.output], attrs)
