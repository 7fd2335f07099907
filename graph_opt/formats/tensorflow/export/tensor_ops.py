"""The TensorFlow nodes of nn's indexing, shape, resize and quantization ops,
for `graph_export`."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn import elementwise as ew
from graph_opt.dialects.nn import index_ops as ix
from graph_opt.dialects.nn import reduce as r
from graph_opt.dialects.nn import shape_ops as s
from graph_opt.dialects.nn import tensor_ops as t
from graph_opt.dialects.nn.base import int_list, int_value, str_value
from graph_opt.dialects.nn.compare import NonZeroOp
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.dense import to_numpy
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.quant_training import FakeQuantVarsGradOp, FakeQuantVarsOp
from graph_opt.dialects.nn.resize import ResizeOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.formats.tensorflow.export.exporter import (
    DataType,
    dtype_of,
    exporter,
    no_form,
)
from graph_opt.formats.tensorflow.export.onnx_semantics import warn_unkept

INT32 = DataType(3)


def _constant(e, op, index: int, what: str) -> np.ndarray:
    array = constant_value(op.operands[index])
    if array is None:
        raise no_form(op, f"{what} must be constant")
    return np.asarray(array)


def _const(e, op, values, suffix: str, dtype=np.int32) -> str:
    return e.const(np.asarray(values, dtype=dtype), f"{e.node_name(op)}/{suffix}")


def _cast(e, op, tensor: str, like, suffix: str) -> str:
    """`tensor` (int32) cast to the element type of the value `like`."""
    node = e.add("Cast", [tensor], f"{e.node_name(op)}/{suffix}", SrcT=INT32,
                 DstT=dtype_of(like), Truncate=False)  # fmt: skip
    return node.name


@exporter(t.SliceOp)
def export_slice(e, op):
    """ONNX-style slices as one StridedSlice over every axis (masked where unsliced)."""
    x = op.operands[0]
    rank = len(x.type.get_shape())
    starts, ends, axes, steps = (
        _constant(e, op, i, "slice bounds").reshape(-1) for i in range(1, 5)
    )
    begin, end, strides = [0] * rank, [0] * rank, [1] * rank
    mask = (1 << rank) - 1
    for start, stop, axis, step in zip(starts, ends, axes, steps):
        axis = int(axis) % rank
        begin[axis], end[axis], strides[axis] = int(start), int(stop), int(step)
        mask &= ~(1 << axis)
    node = e.add(
        "StridedSlice",
        [x, *(_const(e, op, v, n, np.int64) for v, n in
              ((begin, "begin"), (end, "end"), (strides, "strides")))],
        T=dtype_of(x), Index=DataType(9), begin_mask=mask, end_mask=mask,
        ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0,
    )  # fmt: skip
    return e.outputs(node, 1)


@exporter(t.GatherOp)
def export_gather(e, op):
    data, indices = op.operands
    axis = _const(e, op, int_value(op.properties, "axis", 0), "axis")
    node = e.add("GatherV2", [data, indices, axis], Tparams=dtype_of(data),
                 Tindices=dtype_of(indices), Taxis=INT32, batch_dims=0)  # fmt: skip
    return e.outputs(node, 1)


@exporter(t.SplitOp)
def export_split(e, op):
    x = op.operands[0]
    sizes = list(int_list(op.properties, "split"))
    node = e.add(
        "SplitV",
        [x, _const(e, op, sizes, "size_splits"),
         _const(e, op, int_value(op.properties, "axis", 0), "split_dim")],
        T=dtype_of(x), Tlen=INT32, num_split=len(sizes),
    )  # fmt: skip
    return e.outputs(node, len(op.results))


@exporter(ix.GatherNdOp)
def export_gather_nd(e, op):
    """With batch_dims, TensorFlow's GatherNd has no form but for indices
    [..., 1]: GatherV2 with batch_dims along the axis after the batch dims."""
    data, indices = op.operands
    batch_dims = int_value(op.properties, "batch_dims", 0)
    if batch_dims == 0:
        node = e.add("GatherNd", [data, indices], Tparams=dtype_of(data),
                     Tindices=dtype_of(indices))  # fmt: skip
        return e.outputs(node, 1)
    index_type = ranked(indices)
    if index_type is None or index_type.get_shape()[-1] != 1:
        raise no_form(op, "batch_dims with indices whose last dim is not 1")
    name = e.node_name(op)
    squeezed = e.add("Squeeze", [indices], f"{name}/indices", T=dtype_of(indices),
                     squeeze_dims=[-1])  # fmt: skip
    axis = _const(e, op, batch_dims, "axis")
    node = e.add("GatherV2", [data, squeezed.name, axis], Tparams=dtype_of(data),
                 Tindices=dtype_of(indices), Taxis=INT32, batch_dims=batch_dims)  # fmt: skip
    return e.outputs(node, 1)


@exporter(ix.RangeOp)
def export_range(e, op):
    warn_unkept(op)
    node = e.add("Range", op.operands, Tidx=dtype_of(op.operands[0]))
    return e.outputs(node, 1)


@exporter(ix.TopKOp)
def export_top_k(e, op):
    x = op.operands[0]
    rank = len(x.type.get_shape())
    axis = int_value(op.properties, "axis", -1)
    if axis % rank != rank - 1:
        raise no_form(op, "TopKV2 takes the top values along the last axis only")
    k = _const(e, op, int_value(op.properties, "k", 1), "k")
    largest = int_value(op.properties, "largest", 1)
    data = e.tensor(x)
    if not largest:  # the smallest: the largest of the negation, negated back
        data = e.add("Neg", [x], f"{e.node_name(op)}/negated", T=dtype_of(x)).name
    # int32 indices, which TFLite's converter takes, cast to nn's type
    node = e.add("TopKV2", [data, k], T=dtype_of(x), sorted=True)
    values, indices = e.outputs(node, 2)
    if dtype_of(op.results[1]) != INT32:
        indices = _cast(e, op, indices, op.results[1], "indices")
    if not largest:
        values = e.add("Neg", [values], f"{node.name}/values", T=dtype_of(x)).name
    return [values, indices]


@exporter(ix.OneHotOp)
def export_one_hot(e, op):
    indices, values = op.operands
    off, on = _constant(e, op, 1, "the on and off values").reshape(2)
    dtype = np.asarray(off).dtype
    node = e.add(
        "OneHot",
        [indices, _const(e, op, int_value(op.properties, "depth", 1), "depth"),
         _const(e, op, on, "on_value", dtype), _const(e, op, off, "off_value", dtype)],
        T=dtype_of(values), TI=dtype_of(indices), axis=int_value(op.properties, "axis", -1),
    )  # fmt: skip
    return e.outputs(node, 1)


@exporter(r.CumSumOp)
def export_cumsum(e, op):
    x = op.operands[0]
    axis = _const(e, op, int_value(op.properties, "axis", 0), "axis")
    node = e.add("Cumsum", [x, axis], T=dtype_of(x), Tidx=INT32,
                 exclusive=bool(int_value(op.properties, "exclusive", 0)),
                 reverse=bool(int_value(op.properties, "reverse", 0)))  # fmt: skip
    return e.outputs(node, 1)


@exporter(r.ArgMaxOp, r.ArgMinOp)
def export_arg_reduction(e, op):
    x = op.operands[0]
    if int_value(op.properties, "keepdims", 1) or int_value(
        op.properties, "select_last_index", 0
    ):
        raise no_form(op, "ArgMax/ArgMin keep no dims and select the first index")
    warn_unkept(op)
    axis = _const(e, op, int_value(op.properties, "axis", 0), "dimension")
    op_type = "ArgMax" if isinstance(op, r.ArgMaxOp) else "ArgMin"
    node = e.add(op_type, [x, axis], T=dtype_of(x), Tidx=INT32,
                 output_type=dtype_of(op.results[0]))  # fmt: skip
    return e.outputs(node, 1)


@exporter(ResizeOp)
def export_resize(e, op):
    """NHWC resizes of the spatial dims (see mappings/resize.py for the modes)."""
    x = op.operands[0]
    height, width = list(op.results[0].type.get_shape())[1:3]
    mode = str_value(op.properties, "mode", "nearest")
    coordinates = str_value(
        op.properties, "coordinate_transformation_mode", "half_pixel"
    )
    nearest = str_value(op.properties, "nearest_mode", "round_prefer_floor")
    expected = {"asymmetric": "floor"}.get(coordinates, "round_prefer_ceil")
    if (
        coordinates not in ("asymmetric", "align_corners", "half_pixel")
        or (mode == "nearest" and nearest != expected)
        or mode not in ("nearest", "linear")
    ):
        raise no_form(op, f"a {mode} resize with {coordinates} coordinates")
    node = e.add(
        "ResizeBilinear" if mode == "linear" else "ResizeNearestNeighbor",
        [x, _const(e, op, [height, width], "size")], T=dtype_of(x),
        align_corners=coordinates == "align_corners",
        half_pixel_centers=coordinates == "half_pixel",
    )  # fmt: skip
    return e.outputs(node, 1)


@exporter(FakeQuantOp)
def export_fake_quant(e, op):
    x = op.operands[0]
    mins = np.asarray(float_list(op, "min"), np.float32)
    maxs = np.asarray(float_list(op, "max"), np.float32)
    attrs = {"num_bits": int_value(op.properties, "num_bits", 8),
             "narrow_range": bool(int_value(op.properties, "narrow_range", 0))}  # fmt: skip
    if mins.size == 1:
        bounds = [_const(e, op, mins[0], "min", np.float32),
                  _const(e, op, maxs[0], "max", np.float32)]  # fmt: skip
        node = e.add("FakeQuantWithMinMaxVars", [x, *bounds], **attrs)
        return e.outputs(node, 1)
    rank = len(x.type.get_shape())
    if int_value(op.properties, "axis", -1) % rank != rank - 1:
        raise no_form(
            op, "per-channel fake quantization along another axis than the last"
        )
    bounds = [
        _const(e, op, mins, "min", np.float32),
        _const(e, op, maxs, "max", np.float32),
    ]
    node = e.add("FakeQuantWithMinMaxVarsPerChannel", [x, *bounds], **attrs)
    return e.outputs(node, 1)


@exporter(FakeQuantVarsOp)
def export_fake_quant_vars(e, op):
    attrs = {"num_bits": op.bits, "narrow_range": op.is_narrow}
    return e.outputs(e.add("FakeQuantWithMinMaxVars", op.operands, **attrs), 1)


@exporter(FakeQuantVarsGradOp)
def export_fake_quant_vars_grad(e, op):
    attrs = {"num_bits": op.bits, "narrow_range": op.is_narrow}
    node = e.add("FakeQuantWithMinMaxVarsGradient", op.operands, **attrs)
    return e.outputs(node, 1)  # the gradient for the input; min and max unused


def float_list(op, name: str) -> list[float]:
    return list(op.properties[name].get_values())


@exporter(s.ConstantOfShapeOp)
def export_constant_of_shape(e, op):
    shape = op.operands[0]
    value = op.properties.get("value")
    fill = to_numpy(value).reshape(-1)[0] if value is not None else np.float32(0)
    node = e.add("Fill", [shape, e.const(np.asarray(fill), f"{e.node_name(op)}/value")],
                 T=dtype_of(op.results[0]), index_type=dtype_of(shape))  # fmt: skip
    return e.outputs(node, 1)


@exporter(s.SizeOp, s.RankOp)
def export_scalar_query(e, op):
    x = op.operands[0]
    if isinstance(op, s.RankOp):  # int32 in TensorFlow
        rank = e.add("Rank", [x], T=dtype_of(x)).name
        if dtype_of(op.results[0]) == INT32:
            return [rank]
        return [_cast(e, op, rank, op.results[0], "cast")]
    node = e.add("Size", [x], T=dtype_of(x), out_type=dtype_of(op.results[0]))
    return e.outputs(node, 1)


@exporter(NonZeroOp)
def export_nonzero(e, op):
    """TensorFlow's Where gives the indices as rows; nn.nonzero as columns."""
    x = op.operands[0]
    where = e.add("Where", [x], f"{e.node_name(op)}/Where", T=dtype_of(x))
    node = e.add("Transpose", [where.name, _const(e, op, [1, 0], "perm")],
                 T=DataType(9), Tperm=INT32)  # fmt: skip
    return e.outputs(node, 1)


@exporter(ew.IsNanOp, ew.IsInfOp, ew.IsFiniteOp)
def export_float_test(e, op):
    x = op.operands[0]
    op_type = {ew.IsNanOp: "IsNan", ew.IsInfOp: "IsInf", ew.IsFiniteOp: "IsFinite"}
    return e.outputs(e.add(op_type[type(op)], [x], T=dtype_of(x)), 1)
