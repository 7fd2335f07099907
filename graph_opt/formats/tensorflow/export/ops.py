"""The TensorFlow nodes of each op, for `graph_export`: TensorFlow's op names
and attributes (T, data_format, padding, strides, dilations)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Operation

from graph_opt.dialects.effects import GRADIENT_OP_TYPE_ATTR
from graph_opt.dialects.nn import compare as c
from graph_opt.dialects.nn import elementwise as ew
from graph_opt.dialects.nn import reduce as r
from graph_opt.dialects.nn import shape_ops as s
from graph_opt.dialects.nn import tensor_ops as t
from graph_opt.dialects.nn.base import float_value, int_list, int_value, str_value
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.conv import (
    ConvOp,
    ConvTransposeOp,
    resolve_pads,
    transposed_pads_and_sizes,
)
from graph_opt.dialects.nn.dense import to_numpy
from graph_opt.dialects.nn.device_copy import SwapInOp, SwapOutOp
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.layout import CHANNELS_FIRST, CHANNELS_LAST
from graph_opt.dialects.nn.linalg import MatMulOp
from graph_opt.dialects.nn.norm import BatchNormOp, SoftmaxOp
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.pool import AvgPoolOp, GlobalAvgPoolOp, MaxPoolOp
from graph_opt.dialects.nn.pool_grad import AvgPoolGradOp, MaxPoolGradOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.dialects.nn.training import (
    BatchNormGradOp,
    BatchNormTrainingOp,
    ConvFilterGradOp,
)
from graph_opt.formats.tensorflow.export.exporter import (
    DataType,
    GraphExporter,
    dtype_of,
    exporter,
    no_form,
    set_attr,
)
from graph_opt.formats.tensorflow.export.graph_def_stream import hold_weight
from graph_opt.formats.tensorflow.export.onnx_semantics import is_wrapping_cast
from graph_opt.formats.tensorflow.schema import NodeDef
from graph_opt.weights import ScaledWeight, WeightBytes


def simple(op_type: str):
    """A node of the op's type reading its operands, typed by the first (T); an
    op with properties needs an exporter of its own."""

    def export(e: GraphExporter, op: Operation):
        if op.properties:
            raise no_form(op, f"{op_type} takes no {', '.join(op.properties)}")
        node = e.add(op_type, op.operands, T=dtype_of(op.operands[0]))
        return e.outputs(node, len(op.results))

    return export


@exporter(ConstantOp)
def export_constant(e, op):
    """The value copied into the GraphDef once; a mapped weight's pages are
    given back as soon as they are copied (the GraphDef holds the bytes), or
    the weight is held apart when the exporter holds them (`GraphExporter.held`)."""
    data = op.value.data.data
    if e.held is not None and type(data) in (WeightBytes, ScaledWeight):
        if (name := hold_weight(e, op, data)) is not None:
            return [name]
    name = e.const(to_numpy(op.value), e.node_name(op))
    if type(data) is WeightBytes:
        data.release()
    return [name]


for _op_class, _op_type in [
    (ew.AddOp, "AddV2"), (ew.MaxOp, "Maximum"),
    (ew.MinOp, "Minimum"),
]:  # fmt: skip
    exporter(_op_class)(simple(_op_type))


@exporter(SwapOutOp, SwapInOp)
def export_device_copy(e, op):
    """Grappler's swap pair: an Identity on the copy's device (`tf.device`);
    a swap_in waits on its `after` value's node through a control input."""
    inputs: list = [op.input]
    if isinstance(op, SwapInOp) and op.after is not None:
        inputs.append("^" + e.tensor(op.after).partition(":")[0])
    return e.outputs(e.add("Identity", inputs, T=dtype_of(op.input)), 1)


@exporter(ew.DivOp)
def export_div(e, op):
    """nn.div truncates integers, as TensorFlow's TruncateDiv."""
    x = op.operands[0]
    integer = numpy_dtype(x.type.element_type).kind in "iu"
    node = e.add("TruncateDiv" if integer else "RealDiv", op.operands, T=dtype_of(x))
    return e.outputs(node, 1)


@exporter(ew.ModOp)
def export_mod(e, op):
    x = op.operands[0]
    op_type = "TruncateMod" if int_value(op.properties, "fmod", 0) else "FloorMod"
    return e.outputs(e.add(op_type, op.operands, T=dtype_of(x)), 1)


@exporter(ew.EluOp, ew.SeluOp)
def export_elu(e, op):
    """TensorFlow's Elu has alpha 1; its Selu the standard constants (the defaults)."""
    if any(k in op.properties for k in ("alpha", "gamma")):
        default = type(op).get_irdl_definition().properties
        if any(op.properties[k] != default[k].default_value for k in op.properties):
            raise no_form(op, "alpha or gamma other than TensorFlow's")
    x = op.operands[0]
    op_type = "Elu" if isinstance(op, ew.EluOp) else "Selu"
    return e.outputs(e.add(op_type, [x], T=dtype_of(x)), 1)


@exporter(c.SelectOp)
def export_select(e, op):
    node = e.add("SelectV2", op.operands, T=dtype_of(op.operands[1]))
    return e.outputs(node, 1)


def _export_compare(e, op):
    from graph_opt.formats.tensorflow.mappings.compare import COMPARISONS

    op_type = next(k for k, v in COMPARISONS.items() if v is type(op))
    typed = not op_type.startswith("Logical")
    node = e.add(op_type, op.operands, T=dtype_of(op.operands[0]) if typed else None)
    return e.outputs(node, 1)


for _op_class in (c.EqualOp, c.NotEqualOp, c.GreaterOp, c.GreaterEqualOp, c.LessOp,
                  c.LessEqualOp, c.LogicalAndOp, c.LogicalOrOp, c.LogicalNotOp):  # fmt: skip
    exporter(_op_class)(_export_compare)


@exporter(ew.ClipOp)
def export_clip(e, op):
    low, high = (op.properties.get(k) for k in ("min", "max"))
    x = op.operands[0]
    if (
        low is not None
        and high is not None
        and (low.value.data, high.value.data) == (0.0, 6.0)
    ):
        return e.outputs(e.add("Relu6", [x], T=dtype_of(x)), 1)
    dtype = np.dtype(np.float32)
    bounds = [
        e.const(np.array(v.value.data if v is not None else d, dtype))
        for v, d in ((low, -np.inf), (high, np.inf))
    ]
    return e.outputs(e.add("ClipByValue", [x, *bounds], T=dtype_of(x)), 1)


@exporter(ew.LeakyReluOp)
def export_leaky_relu(e, op):
    x = op.operands[0]
    alpha = float_value(op.properties, "alpha", 0.01)
    return e.outputs(e.add("LeakyRelu", [x], T=dtype_of(x), alpha=alpha), 1)


@exporter(MatMulOp)
def export_matmul(e, op):
    lhs, rhs = op.operands
    ranks = [len(v.type.get_shape()) for v in (lhs, rhs)]
    op_type = "MatMul" if ranks == [2, 2] else "BatchMatMulV2"
    return e.outputs(e.add(op_type, [lhs, rhs], T=dtype_of(lhs)), 1)


def _int32(values) -> np.ndarray:
    return np.asarray(values, dtype=np.int32)


def _format_name(op, rank: int) -> str:
    """TensorFlow's data_format for the op's layout at `rank` (NDHWC at 5)."""
    layout = _data_format(op)
    if rank == 5:
        return "NDHWC" if layout == CHANNELS_LAST else "NCDHW"
    return layout


def _pad_input(e, op, x, attrs: dict) -> str:
    """The input padded by an explicit Pad (for ops without EXPLICIT padding),
    the padding made VALID."""
    flat = attrs.pop("explicit_paddings")
    pairs = e.const(_int32(flat).reshape(-1, 2), f"{e.node_name(op)}/paddings")
    attrs["padding"] = "VALID"
    return e.add("Pad", [x, pairs], f"{e.node_name(op)}/Pad", T=dtype_of(x),
                 Tpaddings=DataType(3)).name  # fmt: skip


def _data_format(op) -> str:
    return str_value(op.properties, "data_layout", CHANNELS_FIRST)


def _per_axis(layout: str, values, fill: int = 1) -> list[int]:
    values = list(values)
    return [fill, *values, fill] if layout == CHANNELS_LAST else [fill, fill, *values]


def _padding(op, sizes, kernel, strides, dilations) -> dict:
    """padding (and explicit_paddings) of a window op."""
    auto_pad = str_value(op.properties, "auto_pad", "NOTSET")
    if auto_pad == "SAME_UPPER":
        return {"padding": "SAME"}
    if auto_pad == "VALID":
        return {"padding": "VALID"}
    pads = resolve_pads(
        auto_pad, int_list(op.properties, "pads"), sizes, kernel, strides, dilations
    )
    if pads is None:
        raise no_form(op, "SAME_LOWER padding of an unknown size")
    n = len(sizes)
    if not any(pads):
        return {"padding": "VALID"}
    pairs = [[0, 0]] + [[pads[i], pads[i + n]] for i in range(n)] + [[0, 0]]
    if _data_format(op) == CHANNELS_FIRST:
        pairs = [pairs[0], pairs[-1], *pairs[1:-1]]
    return {"padding": "EXPLICIT", "explicit_paddings": [v for p in pairs for v in p]}


def _spatial(op, shape) -> list[int]:
    shape = list(shape)
    return shape[1:-1] if _data_format(op) == CHANNELS_LAST else shape[2:]


def _bias_add(e, node, op, bias_index: int = 2):
    if len(op.operands) <= bias_index:
        return e.outputs(node, 1)
    x = op.operands[0]
    biased = e.add(
        "BiasAdd", [node.name, op.operands[bias_index]], f"{node.name}/BiasAdd",
        T=dtype_of(x), data_format=_data_format(op),
    )  # fmt: skip
    return e.outputs(biased, 1)  # (NHWC or NCHW, also for 3-D data)


def _filter_hwio(e, op, w) -> str:
    """The filter as TensorFlow wants it (HWIO): as is with NHWC, else transposed."""
    if _data_format(op) == CHANNELS_LAST:
        return e.tensor(w)
    rank = len(w.type.get_shape())
    order = [*range(2, rank), 1, 0]
    weights = constant_value(w)
    if weights is not None:  # a constant filter stays one (TF's importer wants it so)
        return e.const(np.transpose(weights, order), f"{e.node_name(op)}/filter")
    perm = e.const(_int32(order), f"{e.node_name(op)}/filter_perm")
    return e.add("Transpose", [w, perm], f"{e.node_name(op)}/filter", T=dtype_of(w),
                 Tperm=DataType(3)).name  # fmt: skip


@exporter(ConvOp)
def export_conv(e, op):
    """Conv2D, DepthwiseConv2dNative (a conv with one group per input channel)
    or Conv3D."""
    x, w = op.operands[:2]
    x_shape, w_shape = list(x.type.get_shape()), list(w.type.get_shape())
    rank = len(x_shape)
    if rank not in (4, 5):
        raise no_form(op, "only 2-D and 3-D convolutions are written")
    layout = _data_format(op)
    strides, dilations, _, _ = ConvOp.window_props(op.properties, rank - 2)
    kernel = w_shape[: rank - 2] if layout == CHANNELS_LAST else w_shape[2:]
    attrs = {
        "T": dtype_of(x), "data_format": _format_name(op, rank),
        "strides": _per_axis(layout, strides), "dilations": _per_axis(layout, dilations),
        **_padding(op, _spatial(op, x_shape), kernel, strides, dilations),
    }  # fmt: skip
    group = int_value(op.properties, "group", 1)
    filter_name = _filter_hwio(e, op, w)
    data = e.tensor(x)
    if group == 1 and rank == 4:
        node = e.add("Conv2D", [x, filter_name], **attrs)
        return _bias_add(e, node, op)
    if attrs["padding"] == "EXPLICIT":  # Conv3D has none; Depthwise's aborts
        data = _pad_input(e, op, x, attrs)
    if group == 1:
        node = e.add("Conv3D", [data, filter_name], **attrs)
        return _bias_add(e, node, op)
    channels = x_shape[-1] if layout == CHANNELS_LAST else x_shape[1]
    if group != channels or rank != 4:
        raise no_form(
            op, f"a grouped convolution ({group} groups of {channels} channels)"
        )
    h, w_, _, out = (
        w_shape if layout == CHANNELS_LAST else [*w_shape[2:], 1, w_shape[0]]
    )
    shape = e.const(
        _int32([h, w_, channels, out // channels]), f"{e.node_name(op)}/depthwise_shape"
    )
    depthwise = e.add("Reshape", [filter_name, shape], f"{e.node_name(op)}/depthwise_filter",
                      T=dtype_of(w), Tshape=DataType(3)).name  # fmt: skip
    node = e.add("DepthwiseConv2dNative", [data, depthwise], **attrs)
    return _bias_add(e, node, op)


def _transpose_padding(outputs, kernel, strides, dilations, pads, layout) -> dict:
    """padding of a Conv2DBackpropInput whose forward conv pads by `pads`: SAME
    or VALID where they are TensorFlow's (what its TFLite converter takes), else
    EXPLICIT."""
    n = len(outputs)
    same = []
    for o, k, s_, d in zip(outputs, kernel, strides, dilations):
        total = max(0, (-(-o // s_) - 1) * s_ + d * (k - 1) + 1 - o)
        same.append((total // 2, total - total // 2))
    pairs = [(pads[i], pads[i + n]) for i in range(n)]
    if pairs == same:
        return {"padding": "SAME"}
    if not any(pads):
        return {"padding": "VALID"}
    full = [[0, 0], *map(list, pairs), [0, 0]]
    if layout == CHANNELS_FIRST:
        full = [full[0], full[-1], *full[1:-1]]
    return {"padding": "EXPLICIT", "explicit_paddings": [v for p in full for v in p]}


@exporter(ConvTransposeOp)
def export_conv_transpose(e, op):
    """Conv2DBackpropInput, or Conv3DBackpropInputV2 (SAME or VALID only)."""
    x, w = op.operands[:2]
    out_shape = list(op.results[0].type.get_shape())
    rank = len(out_shape)
    if rank not in (4, 5) or int_value(op.properties, "group", 1) != 1:
        raise no_form(
            op, "only 2-D and 3-D ungrouped transposed convolutions are written"
        )
    layout = _data_format(op)
    strides, dilations, pads, auto_pad, output_padding, output_shape = (
        ConvTransposeOp.transpose_props(op.properties, rank - 2)
    )
    w_shape = list(w.type.get_shape())
    kernel = w_shape[: rank - 2] if layout == CHANNELS_LAST else w_shape[2:]
    pads, _ = transposed_pads_and_sizes(
        _spatial(op, x.type.get_shape()), kernel, strides, dilations, pads,
        auto_pad, output_padding, output_shape,
    )  # fmt: skip
    sizes = e.const(_int32(out_shape), f"{e.node_name(op)}/input_sizes")
    attrs = {
        "T": dtype_of(x), "data_format": _format_name(op, rank),
        "strides": _per_axis(layout, strides), "dilations": _per_axis(layout, dilations),
        **_transpose_padding(_spatial(op, out_shape), kernel, strides, dilations, pads, layout),
    }  # fmt: skip
    op_type = "Conv2DBackpropInput" if rank == 4 else "Conv3DBackpropInputV2"
    if rank == 5 and attrs["padding"] == "EXPLICIT":
        raise no_form(op, "Conv3DBackpropInputV2 pads only as SAME or VALID")
    node = e.add(op_type, [sizes, _filter_hwio(e, op, w), x], **attrs)
    return _bias_add(e, node, op)


@exporter(ConvFilterGradOp)
def export_conv_filter_grad(e, op):
    x, dy = op.operands
    layout = _data_format(op)
    strides, dilations, _, _ = ConvFilterGradOp.window_props(op.properties, 2)
    shape = list(int_list(op.properties, "filter_shape"))
    kernel = shape[:2] if layout == CHANNELS_LAST else shape[2:]
    sizes = e.const(_int32(shape), f"{e.node_name(op)}/filter_sizes")
    node = e.add(
        "Conv2DBackpropFilter", [x, sizes, dy], T=dtype_of(x), data_format=layout,
        strides=_per_axis(layout, strides), dilations=_per_axis(layout, dilations),
        **_padding(op, _spatial(op, x.type.get_shape()), kernel, strides, dilations),
    )  # fmt: skip
    return e.outputs(node, 1)


def _batch_norm_attrs(op, training: bool) -> dict:
    x = op.operands[1] if isinstance(op, BatchNormGradOp) else op.operands[0]
    data_format = _data_format(op)
    if isinstance(x.type, TensorType) and x.type.get_num_dims() == 5:
        data_format = {"NHWC": "NDHWC", "NCHW": "NCDHW"}[data_format]
    return {
        "T": dtype_of(x), "U": dtype_of(x), "data_format": data_format,
        "epsilon": float_value(op.properties, "epsilon", 1e-5), "is_training": training,
    }  # fmt: skip


@exporter(BatchNormOp)
def export_batch_norm(e, op):
    node = e.add("FusedBatchNormV3", op.operands, **_batch_norm_attrs(op, False))
    return e.outputs(node, 1)


@exporter(BatchNormTrainingOp)
def export_batch_norm_training(e, op):
    attrs = _batch_norm_attrs(op, True)
    attrs["exponential_avg_factor"] = float_value(
        op.properties, "exponential_avg_factor", 1.0
    )
    gradient = op.attributes.get(GRADIENT_OP_TYPE_ATTR)
    if isinstance(gradient, StringAttr):
        attrs["_gradient_op_type"] = gradient.data
    node = e.add("FusedBatchNormV3", op.operands, **attrs)
    return e.outputs(node, 5)


@exporter(BatchNormGradOp)
def export_batch_norm_grad(e, op):
    # reserve_space_3, which only a GPU kernel reads, as the saved variance
    inputs = [*op.operands, op.operands[4]]
    node = e.add("FusedBatchNormGradV3", inputs, **_batch_norm_attrs(op, True))
    return e.outputs(node, 3)


REDUCTIONS = {r.ReduceMeanOp: "Mean", r.ReduceSumOp: "Sum", r.ReduceMaxOp: "Max",
              r.ReduceMinOp: "Min", r.ReduceProdOp: "Prod", r.ReduceAnyOp: "Any",
              r.ReduceAllOp: "All"}  # fmt: skip


@exporter(*REDUCTIONS)
def export_reduction(e, op):
    x = op.operands[0]
    rank = len(x.type.get_shape())
    axes = int_list(op.properties, "axes")
    if len(op.operands) > 1:
        axes = constant_value(op.operands[1])
        if axes is None:
            raise no_form(op, "reduction axes must be constant")
    if (
        axes is not None
        and len(axes) == 0
        and int_value(op.properties, "noop_with_empty_axes", 0)
    ):
        return e.outputs(e.add("Identity", [x], T=dtype_of(x)), 1)
    axes = list(range(rank)) if axes is None or len(axes) == 0 else list(axes)
    indices = e.const(_int32(axes), f"{e.node_name(op)}/reduction_indices")
    typed = type(op) not in (r.ReduceAnyOp, r.ReduceAllOp)
    node = e.add(
        REDUCTIONS[type(op)], [x, indices], T=dtype_of(x) if typed else None,
        Tidx=DataType(3), keep_dims=bool(int_value(op.properties, "keepdims", 1)),
    )  # fmt: skip
    return e.outputs(node, 1)


@exporter(GlobalAvgPoolOp)
def export_global_avg_pool(e, op):
    x = op.operands[0]
    axes = [1, 2] if _data_format(op) == CHANNELS_LAST else [2, 3]
    indices = e.const(_int32(axes), f"{e.node_name(op)}/reduction_indices")
    node = e.add("Mean", [x, indices], T=dtype_of(x), Tidx=DataType(3), keep_dims=True)
    return e.outputs(node, 1)


def _reshape_to_result(e, op):
    """A Reshape to the result's static shape, else (nn.reshape) to its shape
    operand where TensorFlow reads it alike (no 0 copying an input dim)."""
    x, out = op.operands[0], op.results[0]
    target = ranked(out)
    if target is not None and DYN not in target.get_shape():
        shape = e.const(_int32(target.get_shape()), f"{e.node_name(op)}/shape")
        node = e.add("Reshape", [x, shape], T=dtype_of(x), Tshape=DataType(3))
        return e.outputs(node, 1)
    if not isinstance(op, s.ReshapeOp):
        raise no_form(op, "a reshape to a dynamic shape")
    dims = constant_value(op.operands[1])
    if not int_value(op.properties, "allowzero", 0) and (dims is None or 0 in dims):
        raise no_form(op, "a reshape copying input dims (0 in its shape)")
    shape = op.operands[1]
    node = e.add("Reshape", [x, shape], T=dtype_of(x), Tshape=dtype_of(shape))
    return e.outputs(node, 1)


for _op_class in (s.ReshapeOp, s.FlattenOp, s.SqueezeOp, s.UnsqueezeOp):
    exporter(_op_class)(_reshape_to_result)


@exporter(t.TransposeOp)
def export_transpose(e, op):
    x = op.operands[0]
    perm = int_list(op.properties, "perm") or list(
        reversed(range(len(x.type.get_shape())))
    )
    perm_name = e.const(_int32(perm), f"{e.node_name(op)}/perm")
    node = e.add("Transpose", [x, perm_name], T=dtype_of(x), Tperm=DataType(3))
    return e.outputs(node, 1)


@exporter(t.ConcatOp)
def export_concat(e, op):
    axis = e.const(
        _int32(int_value(op.properties, "axis", 0)), f"{e.node_name(op)}/axis"
    )
    node = e.add("ConcatV2", [*op.operands, axis], T=dtype_of(op.operands[0]),
                 N=len(op.operands), Tidx=DataType(3))  # fmt: skip
    return e.outputs(node, 1)


@exporter(t.TileOp)
def export_tile(e, op):
    x, repeats = op.operands
    node = e.add("Tile", [x, repeats], T=dtype_of(x), Tmultiples=dtype_of(repeats))
    return e.outputs(node, 1)


@exporter(t.CastOp)
def export_cast(e, op):
    """A float cast to a narrow integer that wraps (ONNX) goes through int32."""
    x, source = op.operands[0], dtype_of(op.operands[0])
    if is_wrapping_cast(op):
        x = e.add("Cast", [x], f"{e.node_name(op)}/int32", SrcT=source,
                  DstT=DataType(3), Truncate=False).name  # fmt: skip
        source = DataType(3)
    node = e.add("Cast", [x], SrcT=source, DstT=dtype_of(op.results[0]), Truncate=False)
    return e.outputs(node, 1)


@exporter(t.PadOp)
def export_pad(e, op):
    x = op.operands[0]
    pads = list(int_list(op.properties, "pads"))
    n = len(pads) // 2
    paddings = e.const(
        _int32([[pads[i], pads[i + n]] for i in range(n)]),
        f"{e.node_name(op)}/paddings",
    )
    mode = str_value(op.properties, "mode", "constant")
    if mode == "reflect":
        node = e.add(
            "MirrorPad",
            [x, paddings],
            T=dtype_of(x),
            Tpaddings=DataType(3),
            mode="REFLECT",
        )
    elif mode == "constant":
        value = float_value(op.properties, "value", 0.0)
        fill = e.const(
            np.array(
                value, dtype=np.dtype(x.type.element_type.__class__ and _np_dtype(x))
            ),
            f"{e.node_name(op)}/constant_values",
        )
        node = e.add("PadV2", [x, paddings, fill], T=dtype_of(x), Tpaddings=DataType(3))
    else:
        raise no_form(op, f"pad mode {mode}")
    return e.outputs(node, 1)


def _np_dtype(value) -> np.dtype:
    from graph_opt.dialects.nn.dtypes import numpy_dtype

    return numpy_dtype(value.type.element_type)


@exporter(MaxPoolOp, AvgPoolOp)
def export_pool(e, op):
    x = op.operands[0]
    layout = _data_format(op)
    kernel = list(int_list(op.properties, "kernel_shape"))
    strides, dilations, _, _ = (
        MaxPoolOp.window_props(op.properties, len(kernel))
        if isinstance(op, MaxPoolOp)
        else (
            list(int_list(op.properties, "strides") or [1] * len(kernel)),
            [1] * len(kernel),
            None,
            None,
        )
    )
    padding = _padding(op, _spatial(op, x.type.get_shape()), kernel, strides, dilations)
    if int_value(op.properties, "ceil_mode", 0):
        raise no_form(op, "pooling with ceil_mode")
    # only 2-D max pooling takes EXPLICIT padding (padding never wins a max)
    if padding["padding"] == "EXPLICIT" and (
        isinstance(op, AvgPoolOp) or len(kernel) != 2
    ):
        raise no_form(op, "average or 3-D pooling with explicit padding")
    if (
        isinstance(op, AvgPoolOp)
        and padding["padding"] == "SAME"
        and int_value(op.properties, "count_include_pad", 0)
    ):
        raise no_form(op, "average pooling that counts the padding")
    op_type = "MaxPool" if isinstance(op, MaxPoolOp) else "AvgPool"
    node = e.add(
        op_type + ("3D" if len(kernel) == 3 else ""), [x], T=dtype_of(x),
        ksize=_per_axis(layout, kernel), strides=_per_axis(layout, strides),
        data_format=_format_name(op, len(kernel) + 2), padding=padding["padding"],
        explicit_paddings=padding.get("explicit_paddings"),
    )  # fmt: skip
    return e.outputs(node, 1)


@exporter(MaxPoolGradOp, AvgPoolGradOp)
def export_pool_grad(e, op):
    """AvgPoolGrad, or MaxPoolGrad reading a MaxPool of the input as its
    orig_output."""
    kernel = list(int_list(op.properties, "kernel_shape"))
    strides = list(int_list(op.properties, "strides") or [1] * len(kernel))
    average = isinstance(op, AvgPoolGradOp)
    shape = (
        list(int_list(op.properties, "input_shape"))
        if average
        else op.input.type.get_shape()
    )
    padding = _padding(op, _spatial(op, shape), kernel, strides, [1] * len(kernel))
    layout, rank = _data_format(op), len(kernel) + 2
    # as in pooling, only the 2-D max takes EXPLICIT padding
    if padding["padding"] == "EXPLICIT" and (average or rank != 4):
        raise no_form(op, "average or 3-D pooling gradients with explicit padding")
    attrs = {
        "T": dtype_of(op.output_grad), "ksize": _per_axis(layout, kernel),
        "strides": _per_axis(layout, strides), "padding": padding["padding"],
        "data_format": _format_name(op, rank),
        "explicit_paddings": padding.get("explicit_paddings"),
    }  # fmt: skip
    suffix = "3D" if rank == 5 else ""
    if average:
        sizes = e.const(_int32(shape), f"{e.node_name(op)}/orig_input_shape")
        return e.outputs(
            e.add(f"AvgPool{suffix}Grad", [sizes, op.output_grad], **attrs), 1
        )
    name = f"{e.node_name(op)}/orig_output"
    pooled = e.add(f"MaxPool{suffix}", [op.input], name, **attrs)
    if rank == 5:
        attrs["TInput"] = attrs["T"]
    node = e.add(
        f"MaxPool{suffix}Grad", [op.input, pooled.name, op.output_grad], **attrs
    )
    return e.outputs(node, 1)


@exporter(SoftmaxOp)
def export_softmax(e, op):
    x = op.operands[0]
    axis = int_value(op.properties, "axis", -1)
    if axis not in (-1, len(x.type.get_shape()) - 1):
        raise no_form(op, "softmax along another axis than the last")
    return e.outputs(e.add("Softmax", [x], T=dtype_of(x)), 1)


@exporter(s.ShapeOp)
def export_shape(e, op):
    x = op.operands[0]
    node = e.add("Shape", [x], T=dtype_of(x), out_type=dtype_of(op.results[0]))
    return e.outputs(node, 1)


@exporter(OpaqueOp)
def export_opaque(e, op):
    """A TensorFlow op kept opaque (side effects, --allow-tf-opaque) as it was."""
    if op.domain is None or op.domain.data != "tf":
        raise no_form(op, f"the {op.op_type.data} of another framework")
    node = e.add(op.op_type.data, op.operands)
    if op.serialized_attrs is not None:
        kept = NodeDef()
        kept.ParseFromString(op.serialized_attrs.data)
        for key in kept.attr:
            node.attr[key].CopyFrom(kept.attr[key])
    if op.attrs is not None:
        for key, value in op.attrs.data.items():
            _set_mlir_attr(node, key, value)
    return e.outputs(node, len(op.results))


def _set_mlir_attr(node: NodeDef, key: str, value) -> None:
    from xdsl.dialects.builtin import ArrayAttr, StringAttr

    if isinstance(value, IntegerAttr):
        width = value.type.width.data  # type: ignore[attr-defined]
        set_attr(
            node.attr[key], bool(value.value.data) if width == 1 else value.value.data
        )
    elif isinstance(value, FloatAttr):
        set_attr(node.attr[key], value.value.data)
    elif isinstance(value, StringAttr):
        set_attr(node.attr[key], value.data)
    elif isinstance(value, DenseArrayBase):
        set_attr(node.attr[key], [int(v) for v in value.get_values()])
    elif isinstance(value, ArrayAttr) and all(
        isinstance(v, StringAttr) for v in value.data
    ):
        node.attr[key].list.s.extend(v.data.encode() for v in value.data)
    elif isinstance(value, ArrayAttr):
        set_attr(node.attr[key], [dtype_of(v) for v in value.data])
    elif not isinstance(value, BytesAttr):
        set_attr(node.attr[key], dtype_of(value))
