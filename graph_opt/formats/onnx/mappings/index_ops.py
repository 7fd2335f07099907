"""ONNX mappings of Range, OneHot, TopK, GatherND and GatherElements."""

from __future__ import annotations

import numpy as np
import onnx.helper
from xdsl.dialects.builtin import UnitAttr

from graph_opt.dialects.nn import index_ops as ix
from graph_opt.dialects.nn.base import i64_attr, int_value
from graph_opt.dialects.nn.dtypes import is_float_dtype
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.formats.onnx.mappings.tf_semantics import emit_product_range
from graph_opt.formats.onnx.op_table import exporter, importer, register_simple

register_simple("GatherND", ix.GatherNdOp)
register_simple("GatherElements", ix.GatherElementsOp)


def check_opset(e, op, first: int) -> None:
    """ONNX's first opset with the op's form (Range, GatherND: 11; TopK: 10)."""
    if e.opset < first:
        e.unsupported(op, f"its ONNX form needs opset {first}, the model has {e.opset}")


@importer("Range")
def import_range(b, node, inputs):
    """Operands of unknown rank, or not scalars by type, stay nn.opaque.
    Elements accumulate (start + delta + ...), as onnxruntime computes them."""
    types = [ranked(v) for v in inputs]
    if any(t is None or t.get_num_dims() != 0 for t in types):
        return None
    return b.create(ix.RangeOp, inputs, {"accumulate": UnitAttr()})


@exporter(ix.RangeOp)
def export_range(e, op: ix.RangeOp):
    """Floats without `accumulate` (TensorFlow's start + i * delta) as that
    product, exactly; otherwise Range (a running sum, equal for integers)."""
    check_opset(e, op, 11)
    if op.accumulate is None and is_float_dtype(e.numpy_dtype(op.start)):
        emit_product_range(e, op)
        return
    e.node("Range", list(op.operands), [op.output])


@importer("OneHot")
def import_one_hot(b, node, inputs):
    """ONNX's negative indices count from the end: wrap_negative."""
    if None in inputs:
        return None
    indices, depth, values = inputs
    depth_value = b.constant_value(depth)
    if depth_value is None or depth_value.size != 1:
        return None
    props = {
        "depth": i64_attr(int(depth_value.reshape(-1)[0])),
        "axis": i64_attr(b.attrs(node).get("axis", -1)),
        "wrap_negative": i64_attr(1),
    }
    return b.create(ix.OneHotOp, [indices, values], props)


def _cast(e, name: str, to: np.dtype, hint: str) -> str:
    cast = e.fresh(hint)
    e.node("Cast", [name], [cast], e.attrs(to=onnx.helper.np_dtype_to_tensor_dtype(to)))
    return cast


@exporter(ix.GatherNdOp)
def export_gather_nd(e, op: ix.GatherNdOp):
    """ONNX's GatherND takes int64 indices only."""
    batch_dims = int_value(op.properties, "batch_dims", 0)
    check_opset(e, op, 12 if batch_dims else 11)
    indices = e.name(op.indices)
    if e.numpy_dtype(op.indices) != np.int64:
        indices = _cast(e, indices, np.dtype(np.int64), "indices")
    attrs = e.attrs(batch_dims=batch_dims) if batch_dims else []
    e.node("GatherND", [op.data, indices], [op.output], attrs)


@exporter(ix.OneHotOp)
def export_one_hot(e, op: ix.OneHotOp):
    """int64 indices and f32 or i64 values, the types onnxruntime's OneHot takes;
    without wrap_negative, negative indices are first moved out of range."""
    depth = op.depth.value.data
    indices = e.name(op.indices)
    if e.numpy_dtype(op.indices) != np.int64:
        indices = _cast(e, indices, np.dtype(np.int64), "indices")
    if not int_value(op.properties, "wrap_negative", 0):
        negative, moved = e.fresh("negative"), e.fresh("indices")
        zero = e.initializer(np.array(0, np.int64), "zero")
        e.node("Less", [indices, zero], [negative])
        out_of_range = e.initializer(np.array(depth, np.int64), "depth")
        e.node("Where", [negative, out_of_range, indices], [moved])
        indices = moved
    depth_name = e.initializer(np.array(depth, np.int64), "depth")
    attrs = e.attrs(axis=int_value(op.properties, "axis", -1))
    dtype = e.numpy_dtype(op.values)
    work = np.dtype(np.float32 if is_float_dtype(dtype) else np.int64)
    if dtype == work:
        e.node("OneHot", [indices, depth_name, op.values], [op.output], attrs)
        return
    values = _cast(e, e.name(op.values), work, "values")
    hot = e.fresh("one_hot")
    e.node("OneHot", [indices, depth_name, values], [hot], attrs)
    e.node(
        "Cast",
        [hot],
        [op.output],
        e.attrs(to=onnx.helper.np_dtype_to_tensor_dtype(dtype)),
    )


@importer("TopK")
def import_top_k(b, node, inputs):
    attrs = b.attrs(node)
    if inputs[0] is None or not attrs.get("sorted", 1):
        return None
    if b.opset < 10:
        k = attrs.get("k")
    else:
        k_value = b.constant_value(inputs[1]) if inputs[1] is not None else None
        k = (
            None
            if k_value is None or k_value.size != 1
            else int(k_value.reshape(-1)[0])
        )
    if k is None:
        return None
    props = {
        "k": i64_attr(k),
        "axis": i64_attr(attrs.get("axis", -1)),
        "largest": i64_attr(attrs.get("largest", 1)),
    }
    return b.create(ix.TopKOp, inputs[:1], props)


@exporter(ix.TopKOp)
def export_top_k(e, op: ix.TopKOp):
    check_opset(e, op, 10 if int_value(op.properties, "largest", 1) else 11)
    k = e.initializer(np.array([op.k.value.data], np.int64), "k")
    attrs = e.attrs(axis=int_value(op.properties, "axis", -1))
    if e.opset >= 11:
        attrs += e.attrs(largest=int_value(op.properties, "largest", 1))
    e.node("TopK", [op.input, k], [op.values, op.indices], attrs)
