"""ONNX mappings of tensor ops: Transpose, Concat, Split, Slice, Gather, Pad, Cast,
Dropout, Tile, Expand."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import Float64Type, FloatAttr

from graph_opt.dialects.nn import tensor_ops as t
from graph_opt.dialects.nn.base import f32_attr, i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.mappings.tf_semantics import (
    emit_clamped_cast,
    is_clamped_cast,
)
from graph_opt.formats.onnx.op_table import exporter, importer, register_simple
from graph_opt.formats.onnx.types import onnx_dtype_of, onnx_element_type

register_simple("Transpose", t.TransposeOp)
register_simple("Concat", t.ConcatOp)
register_simple("Gather", t.GatherOp)
register_simple("Tile", t.TileOp)
register_simple("Expand", t.ExpandOp)


def constant_ints(b, value) -> list[int] | None:
    """The values of a constant integer input, or None when it is computed at run time."""
    array = b.constant_value(value)
    return None if array is None else [int(v) for v in array.reshape(-1)]


@importer("Split")
def import_split(b, node, inputs):
    attrs = b.attrs(node)
    x = inputs[0]
    if x is None:
        return None
    sizes = attrs.get("split") if b.opset < 13 else None
    if b.opset >= 13 and len(inputs) > 1 and inputs[1] is not None:
        sizes = constant_ints(b, inputs[1])
        if sizes is None:
            return None
    axis = attrs.get("axis", 0)
    if sizes is None:
        sizes = even_split(ranked(x), axis, len(node.output), attrs.get("num_outputs"))
        if sizes is None:
            return None
    props = {"axis": i64_attr(axis), "split": i64_array(sizes)}
    return b.create(t.SplitOp, [x], props)


def even_split(x, axis: int, outputs: int, num_outputs: int | None) -> list[int] | None:
    """ONNX's split sizes when none are given: equal parts, the last one smaller with
    `num_outputs`; None when the dim is unknown or the split has no valid sizes."""
    if x is None:
        return None
    shape = x.get_shape()
    if not -len(shape) <= axis < len(shape):
        raise FrontendError(f"split axis {axis} is out of range for rank {len(shape)}")
    dim = shape[axis]
    if dim == DYN:
        return None
    if num_outputs is None:
        return [dim // outputs] * outputs if dim % outputs == 0 else None
    chunk = -(-dim // num_outputs)
    last = dim - chunk * (num_outputs - 1)
    return [chunk] * (num_outputs - 1) + [last] if last >= 0 else None


@exporter(t.SplitOp)
def export_split(e, op: t.SplitOp):
    sizes = list(op.split.get_values())
    axis = op.axis.value.data if op.axis is not None else 0
    if e.opset < 13:
        e.node("Split", [op.input], list(op.outputs), e.attrs(axis=axis, split=sizes))
        return
    split = e.initializer(np.array(sizes, np.int64), "split")
    e.node("Split", [op.input, split], list(op.outputs), e.attrs(axis=axis))


@importer("Slice")
def import_slice(b, node, inputs):
    if None in inputs[:3]:
        return None
    if b.opset < 10:
        attrs = b.attrs(node)
        starts, ends = attrs.get("starts"), attrs.get("ends")
        if starts is None or ends is None:
            return None
        axes = attrs.get("axes", list(range(len(starts))))
        params = [b.constant(np.array(v, np.int64)) for v in (starts, ends, axes)]
        params.append(b.constant(np.ones(len(starts), np.int64)))
        return b.create(t.SliceOp, [inputs[0], *params], {})
    data, starts, ends, *optional = inputs
    optional += [None] * (2 - len(optional))
    start_type = ranked(starts)
    if start_type is None or start_type.get_shape()[:1] in ((), (DYN,)):
        return None
    count = start_type.get_shape()[0]
    dtype = numpy_dtype(start_type.element_type)
    axes, steps = optional
    if axes is None:
        axes = b.constant(np.arange(count, dtype=dtype))
    if steps is None:
        steps = b.constant(np.ones(count, dtype=dtype))
    return b.create(t.SliceOp, [data, starts, ends, axes, steps], {})


def slice_node(e, data, output, starts, ends, axes) -> None:
    """A unit-step ONNX Slice of constant bounds, in the form the opset needs."""
    if e.opset < 10:
        e.node("Slice", [data], [output], e.attrs(starts=starts, ends=ends, axes=axes))
        return
    bounds = [e.initializer(np.array(v, np.int64), n) for v, n in
              ((starts, "starts"), (ends, "ends"), (axes, "axes"))]  # fmt: skip
    e.node("Slice", [data, *bounds], [output])


@exporter(t.SliceOp)
def export_slice(e, op: t.SliceOp):
    if e.opset >= 10:
        e.node("Slice", list(op.operands), [op.output])
        return
    starts, ends, axes, steps = (
        constant_value(v) for v in (op.starts, op.ends, op.axes, op.steps)
    )
    if any(a is None for a in (starts, ends, axes, steps)) or (steps != 1).any():
        e.unsupported(
            op, f"Slice at opset {e.opset} needs constant bounds and unit steps"
        )
    slice_node(e, op.data, op.output, *(a.tolist() for a in (starts, ends, axes)))


@importer("Pad")
def import_pad(b, node, inputs):
    attrs = b.attrs(node)
    x = inputs[0]
    if x is None or b.opset < 2:
        return None
    mode = attrs.get("mode", b"constant").decode()
    if mode not in t.PAD_MODES:
        return None
    if b.opset < 11:
        pads, value = attrs.get("pads"), attrs.get("value", 0.0)
    else:
        pads_input, fill, axes = (inputs[1:] + [None] * 3)[:3]
        pads = constant_ints(b, pads_input) if pads_input is not None else None
        fill_value = b.constant_value(fill) if fill is not None else np.zeros(1)
        if pads is None or fill_value is None or fill_value.size != 1:
            return None
        value = float(fill_value.reshape(-1)[0])
        if axes is not None:
            pads = pads_of_all_axes(ranked(x), pads, constant_ints(b, axes))
    if pads is None:
        return None
    props = {
        "pads": i64_array(pads),
        "mode": str_attr(mode),
        "value": exact_float_attr(value),
    }
    return b.create(t.PadOp, [x], props)


def exact_float_attr(value: float) -> FloatAttr:
    """The fill value as float32 when that holds it exactly, else float64 (a
    float64 tensor's 0.1, an int32's 2^24 + 1)."""
    if float(np.float32(value)) == value or np.isnan(value):
        return f32_attr(value)
    return FloatAttr(value, Float64Type())


def pads_of_all_axes(x, pads: list[int], axes: list[int] | None) -> list[int] | None:
    """Pads over some `axes` as pads over every axis; None when unknown."""
    if x is None or axes is None:
        return None
    rank = x.get_num_dims()
    if len(pads) != 2 * len(axes) or not all(-rank <= a < rank for a in axes):
        raise FrontendError(f"Pad axes {axes} do not match pads {pads} at rank {rank}")
    full = [0] * (2 * rank)
    for i, axis in enumerate(axes):
        full[axis % rank] = pads[i]
        full[axis % rank + rank] = pads[i + len(axes)]
    return full


@exporter(t.PadOp)
def export_pad(e, op: t.PadOp):
    pads = list(op.pads.get_values())
    if e.opset < 11:
        attrs = e.attrs(pads=pads, mode=op.pad_mode, value=op.fill)
        e.node("Pad", [op.input], [op.output], attrs)
        return
    inputs = [op.input, e.initializer(np.array(pads, np.int64), "pads")]
    if op.pad_mode == "constant" and op.fill != 0:
        inputs.append(
            e.initializer(np.array(op.fill, e.numpy_dtype(op.input)), "value")
        )
    e.node("Pad", inputs, [op.output], e.attrs(mode=op.pad_mode))


@importer("Cast")
def import_cast(b, node, inputs):
    attrs = b.attrs(node)
    if inputs[0] is None or "to" not in attrs or set(attrs) - {"to", "saturate"}:
        return None
    try:
        to = onnx_element_type(attrs["to"])
    except FrontendError:
        return None
    props = {"to": to}
    if attrs.get("saturate", 1) == 0:
        props["saturate"] = i64_attr(0)
    return b.create(t.CastOp, inputs, props)


@exporter(t.CastOp)
def export_cast(e, op: t.CastOp):
    """`clamp_narrow` (TensorFlow's clamping) in its exact ONNX form."""
    if is_clamped_cast(e, op):
        emit_clamped_cast(e, op)
        return
    attrs = e.attrs(to=onnx_dtype_of(op.to))
    if op.saturate is not None and op.saturate.value.data == 0:
        attrs += e.attrs(saturate=0)
    e.node("Cast", [op.input], [op.output], attrs)


@importer("Dropout")
def import_dropout(b, node, inputs):
    attrs = b.attrs(node)
    if inputs[0] is None or (len(node.output) > 1 and node.output[1]):
        return None
    ratio = attrs.get("ratio", 0.5)
    if b.opset < 7 and not attrs.get("is_test", 0):
        return None
    if b.opset >= 12:
        ratio_input, training = (inputs[1:] + [None, None])[:2]
        ratio_value = b.constant_value(ratio_input) if ratio_input is not None else 0.5
        mode = b.constant_value(training) if training is not None else False
        if (
            ratio_value is None
            or np.size(ratio_value) != 1
            or mode is None
            or np.any(mode)
        ):
            return None
        ratio = float(np.reshape(ratio_value, -1)[0])
    return b.create(t.DropoutOp, inputs[:1], {"ratio": f32_attr(ratio)})


@exporter(t.DropoutOp)
def export_dropout(e, op: t.DropoutOp):
    ratio = op.ratio.value.data if op.ratio is not None else None
    if e.opset < 7:
        e.node("Identity", [op.input], [op.output])
    elif e.opset < 12:
        e.node("Dropout", [op.input], [op.output], e.attrs(ratio=ratio))
    else:
        inputs = [op.input]
        if ratio is not None:
            inputs.append(e.initializer(np.array(ratio, np.float32), "ratio"))
        e.node("Dropout", inputs, [op.output])
