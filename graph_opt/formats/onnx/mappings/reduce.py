"""ONNX mappings of reductions: axes are an attribute in early opsets, an input later."""

from __future__ import annotations

import numpy as np
import onnx
from xdsl.dialects.builtin import UnitAttr, i64

from graph_opt.dialects.nn import reduce as r
from graph_opt.dialects.nn.base import i64_array, i64_attr, int_list, int_value
from graph_opt.dialects.nn.dtypes import is_float_dtype
from graph_opt.formats.onnx.attrs import mlir_attr
from graph_opt.formats.onnx.mappings.tf_semantics import emit_nan_ignoring_arg
from graph_opt.formats.onnx.op_table import exporter, importer

OP_TYPES = {
    r.ReduceMeanOp: "ReduceMean",
    r.ReduceSumOp: "ReduceSum",
    r.ReduceMaxOp: "ReduceMax",
    r.ReduceMinOp: "ReduceMin",
    r.ReduceProdOp: "ReduceProd",
}
BOOL_REDUCTIONS = {r.ReduceAnyOp: "ReduceMax", r.ReduceAllOp: "ReduceMin"}
"""ONNX has no Any and All: max and min of the input cast to int32, cast back."""
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
    emit_reduce(e, OP_TYPES[type(op)], op, op.input, op.output)


@exporter(*BOOL_REDUCTIONS)
def export_bool_reduce(e, op: r.ReduceOp):
    x = e.name(op.input)
    as_int, reduced = e.fresh(f"{x}_int"), e.fresh(f"{x}_reduced")
    e.node("Cast", [x], [as_int], e.attrs(to=onnx.TensorProto.INT32))
    emit_reduce(e, BOOL_REDUCTIONS[type(op)], op, as_int, reduced)
    e.node("Cast", [reduced], [op.output], e.attrs(to=onnx.TensorProto.BOOL))


def emit_reduce(e, op_type: str, op: r.ReduceOp, x, out) -> None:
    """`op`'s reduction as the ONNX `op_type` from `x` to `out`."""
    axes = list(int_list(op.properties, "axes") or ())
    noop = int_value(op.properties, "noop_with_empty_axes", 0)
    keepdims = int_value(op.properties, "keepdims", 1)
    if e.opset < axes_input_opset(op_type):
        if not axes and noop:
            e.node("Identity", [x], [out])
            return
        attrs = e.attrs(axes=axes or None, keepdims=keepdims)
        e.node(op_type, [x], [out], attrs)
        return
    inputs = [x]
    if axes:
        inputs.append(e.initializer(np.array(axes, np.int64), "axes"))
    attrs = e.attrs(keepdims=keepdims, noop_with_empty_axes=noop or None)
    e.node(op_type, inputs, [out], attrs)


ARG_ATTRS = frozenset({"axis", "keepdims", "select_last_index"})


@importer("ArgMax", "ArgMin")
def import_arg_reduce(b, node, inputs):
    """nn.argmax / nn.argmin scanning from the first element, as onnxruntime
    does (a leading NaN's index is the result; TensorFlow's scan differs)."""
    if inputs[0] is None or {a.name for a in node.attribute} - ARG_ATTRS:
        return None
    props = {a.name: mlir_attr(a) for a in node.attribute}
    props["scan_from_first"] = UnitAttr()
    op_class = r.ArgMaxOp if node.op_type == "ArgMax" else r.ArgMinOp
    return b.create(op_class, inputs, props)


@exporter(r.ArgMaxOp, r.ArgMinOp)
def export_arg_reduce(e, op: r.ArgReduceOp):
    """ONNX's indices are int64: an i32 `output_type` adds a Cast. Floats
    without `scan_from_first` ignore NaN (TensorFlow's scan)."""
    op_type = "ArgMax" if isinstance(op, r.ArgMaxOp) else "ArgMin"
    skipped = ("output_type", "scan_from_first")
    props = {k: v for k, v in op.properties.items() if k not in skipped}
    if props.get("select_last_index") is not None and e.opset < SELECT_LAST_OPSET:
        if int_value(props, "select_last_index", 0):
            e.unsupported(op, f"select_last_index needs opset {SELECT_LAST_OPSET}")
        del props["select_last_index"]
    attrs = e.props_to_attrs(props)
    emit = emit_arg
    if op.scan_from_first is None and is_float_dtype(e.numpy_dtype(op.input)):
        emit = emit_nan_ignoring_arg  # TensorFlow's scan, exactly
    if op.output.type.element_type == i64:
        emit(e, op, op_type, attrs, op.output)
        return
    indices = e.fresh(f"{e.name(op.input)}_{op_type.lower()}")
    emit(e, op, op_type, attrs, indices)
    e.node("Cast", [indices], [op.output], e.attrs(to=onnx.TensorProto.INT32))


def emit_arg(e, op: r.ArgReduceOp, op_type: str, attrs, out) -> None:
    e.node(op_type, [op.input], [out], attrs)


SELECT_LAST_OPSET = 12


@importer("CumSum")
def import_cumsum(b, node, inputs):
    if len(inputs) != 2 or None in inputs:
        return None
    axis = b.constant_value(inputs[1])
    if axis is None or axis.size != 1:
        return None
    props = b.props_from(node, allowed=("exclusive", "reverse"))
    props["axis"] = i64_attr(int(axis.reshape(())))
    return b.create(r.CumSumOp, [inputs[0]], props)


@exporter(r.CumSumOp)
def export_cumsum(e, op: r.CumSumOp):
    axis = e.initializer(
        np.array(int_value(op.properties, "axis", 0), np.int64), "axis"
    )
    attrs = e.props_to_attrs({k: v for k, v in op.properties.items() if k != "axis"})
    e.node("CumSum", [op.input, axis], [op.output], attrs)
