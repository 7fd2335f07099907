"""The int8 graph's ops as TFLite operators: the table, and the ops that are one
operator each (a standalone requantization is QUANTIZE, int8 clamps are
MAXIMUM/MINIMUM, shape ops, pools); the integer layers are layers.py's."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.ir import Operation

from graph_opt.dialects.nn.base import float_value, int_value
from graph_opt.dialects.nn.elementwise import AddOp, ClipOp
from graph_opt.dialects.nn.pool import MaxPoolOp, PoolOp
from graph_opt.dialects.nn.qint import (
    DequantizeOp,
    QConvOp,
    QMatMulOp,
    QuantizeOp,
    RescaleOp,
)
from graph_opt.dialects.nn.qpool import QAvgPoolOp
from graph_opt.dialects.nn.reduce import ReduceSumOp
from graph_opt.dialects.nn.shape_ops import FlattenOp, ReshapeOp, SqueezeOp, UnsqueezeOp
from graph_opt.dialects.nn.shapes import normalize_axis, ranked
from graph_opt.dialects.nn.tensor_ops import ConcatOp, PadOp, TransposeOp
from graph_opt.formats.tflite.exporter import TFLiteExporter
from graph_opt.formats.tflite.layers import (
    INT8_MAX,
    INT8_MIN,
    check_multipliers,
    clamp_ops,
    int8,
    int8_input,
    nhwc_shape,
    tensor_quantization,
    window_padding,
    write_add,
    write_qconv,
    write_qmatmul,
    write_reduce_sum,
)
from graph_opt.formats.tflite.recipe_check import check_boundary


def write_op(ex: TFLiteExporter, op: Operation) -> None:
    writer = WRITERS.get(type(op))
    if writer is None:
        raise ex.fail(
            op, "has no TFLite form here (export an int8 graph: convert-to-int)"
        )
    writer(ex, op)


def write_rescale(ex: TFLiteExporter, op: RescaleOp) -> None:
    users = {type(use.operation) for use in op.output.uses}
    if not int8(op.output):
        if users <= {AddOp, ReduceSumOp, RescaleOp}:
            return  # written with the add or mean it feeds (i32 rescales lead there)
        raise ex.fail(op, "widens to i32 for an op with no TFLite form")
    if op.flag("per_channel"):
        raise ex.fail(op, "a per-channel requantization on its own has no TFLite form")
    x_tensor = int8_input(ex, op, op.input, int_value(op.properties, "input_zp", 0))
    out = ex.add_tensor(op.output)
    q_in, q_out = tensor_quantization(ex, x_tensor), tensor_quantization(ex, out)
    check_multipliers(ex, op, q_in.scales[:1], q_out.scales[0])
    ex.emit("QUANTIZE", [x_tensor], [out], version=2)


def write_quantize(ex: TFLiteExporter, op: QuantizeOp) -> None:
    if len(op.scales) != 1:
        raise ex.fail(op, "per-axis quantization of an activation has no TFLite form")
    check_boundary(ex, op)
    ex.emit("QUANTIZE", [ex.tensor(op.input)], [ex.add_tensor(op.output)], version=2)


def write_dequantize(ex: TFLiteExporter, op: DequantizeOp) -> None:
    if not int8(op.input) or len(op.scales) != 1:
        raise ex.fail(op, "dequantizes an i32 accumulator or per axis (a float op "
                      "after an int8 layer): no TFLite form")  # fmt: skip
    x_tensor = int8_input(ex, op, op.input, int(op.zero_points[0]))
    if tensor_quantization(ex, x_tensor).scales[0] != np.float32(op.scales[0]):
        raise ex.fail(op, "its scale is not the recorded one of its input")
    check_boundary(ex, op)
    ex.emit("DEQUANTIZE", [x_tensor], [ex.add_tensor(op.output)], version=2)


def _same_scale_output(ex: TFLiteExporter, op: Operation, x_tensor: int) -> int:
    """The tensor of an op that keeps its input's scale and zero point (if any)."""
    kept = ex.quantization(op.results[0]) or ex.graph.tensors[x_tensor].quantization
    return ex.add_tensor(op.results[0], kept)


def write_clip(ex: TFLiteExporter, op: ClipOp) -> None:
    if not int8(op.input):
        raise ex.fail(op, "a float clip has no place in the int8 export")
    x_tensor = ex.tensor(op.input)
    low = int(float_value(op.properties, "min", INT8_MIN))
    high = int(float_value(op.properties, "max", INT8_MAX))
    clamp_ops(ex, x_tensor, max(low, INT8_MIN), min(high, INT8_MAX), op.output)


def write_reshape(ex: TFLiteExporter, op: Operation) -> None:
    x_tensor = ex.tensor(op.operands[0])
    shape = np.array(ranked(op.results[0]).get_shape(), np.int32)  # type: ignore[union-attr]
    shape_tensor = ex.constant(shape, f"{ex.name_of(op.results[0])}_shape")
    out = _same_scale_output(ex, op, x_tensor)
    ex.emit(
        "RESHAPE",
        [x_tensor, shape_tensor],
        [out],
        ("ReshapeOptions", {"NewShape": shape}),
    )


def write_transpose(ex: TFLiteExporter, op: TransposeOp) -> None:
    x_tensor = ex.tensor(op.input)
    rank = len(ex.graph.tensors[x_tensor].shape)
    perm = np.array(TransposeOp.permutation(op.properties, rank), np.int32)
    perm_tensor = ex.constant(perm, f"{ex.name_of(op.output)}_perm")
    ex.emit(
        "TRANSPOSE",
        [x_tensor, perm_tensor],
        [_same_scale_output(ex, op, x_tensor)],
        version=2,
    )


def write_concat(ex: TFLiteExporter, op: ConcatOp) -> None:
    inputs = [ex.tensor(v) for v in op.inputs]
    rank = len(ex.graph.tensors[inputs[0]].shape)
    axis = normalize_axis(int_value(op.properties, "axis", 0), rank)
    out = _same_scale_output(ex, op, inputs[0])
    fields = {"Axis": axis, "FusedActivationFunction": 0}
    ex.emit("CONCATENATION", inputs, [out], ("ConcatenationOptions", fields), version=2)


def write_pad(ex: TFLiteExporter, op: PadOp) -> None:
    x_tensor = ex.tensor(op.operands[0])
    q = ex.graph.tensors[x_tensor].quantization
    if op.pad_mode != "constant" or (q is not None and op.fill != q.zero_point):
        raise ex.fail(op, "TFLite's PAD fills with the zero point only")
    pads = np.array(op.pads.get_values(), np.int32)  # type: ignore[attr-defined]
    rank = len(pads) // 2
    paddings = np.stack([pads[:rank], pads[rank:]], axis=1)
    pads_tensor = ex.constant(paddings, f"{ex.name_of(op.output)}_paddings")
    ex.emit(
        "PAD",
        [x_tensor, pads_tensor],
        [_same_scale_output(ex, op, x_tensor)],
        version=2,
    )


def write_pool(ex: TFLiteExporter, op: PoolOp) -> None:
    if isinstance(op, MaxPoolOp) and not int8(op.operands[0]):
        raise ex.fail(op, "a float max pool has no place in the int8 export")
    nhwc_shape(ex, op, op.operands[0])
    x_tensor = ex.tensor(op.operands[0])
    kernel, strides, dilations, pads, auto_pad, ceil = op.pool_props(op.properties, 2)
    if ceil or dilations != [1, 1]:
        raise ex.fail(op, "TFLite pools without ceil_mode or dilations")
    fill = INT8_MIN if isinstance(op, MaxPoolOp) else None  # (avg: padding uncounted)
    padding, x_tensor = window_padding(
        ex, op, x_tensor, (kernel, strides, dilations), pads, auto_pad, fill
    )
    if isinstance(op, QAvgPoolOp):
        zp = tensor_quantization(ex, x_tensor).zero_point
        if (
            int_value(op.properties, "input_zp", 0),
            int_value(op.properties, "output_zp", 0),
        ) != (zp, zp):
            raise ex.fail(op, "TFLite's AVERAGE_POOL_2D keeps its input's zero point")
    code = "AVERAGE_POOL_2D" if isinstance(op, QAvgPoolOp) else "MAX_POOL_2D"
    fields = {
        "Padding": padding, "StrideW": strides[1], "StrideH": strides[0],
        "FilterWidth": kernel[1], "FilterHeight": kernel[0], "FusedActivationFunction": 0,
    }  # fmt: skip
    out = _same_scale_output(ex, op, x_tensor)
    ex.emit(code, [x_tensor], [out], ("Pool2DOptions", fields), version=2)


WRITERS: dict[type[Operation], Callable] = {
    QuantizeOp: write_quantize,
    DequantizeOp: write_dequantize,
    QConvOp: write_qconv,
    QMatMulOp: write_qmatmul,
    AddOp: write_add,
    ReduceSumOp: write_reduce_sum,
    RescaleOp: write_rescale,
    ClipOp: write_clip,
    ReshapeOp: write_reshape,
    FlattenOp: write_reshape,
    SqueezeOp: write_reshape,
    UnsqueezeOp: write_reshape,
    TransposeOp: write_transpose,
    ConcatOp: write_concat,
    PadOp: write_pad,
    MaxPoolOp: write_pool,
    QAvgPoolOp: write_pool,
}
