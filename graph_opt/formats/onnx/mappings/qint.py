"""nn.quantize / nn.dequantize -> ONNX QuantizeLinear / DequantizeLinear;
nn.qconv / nn.qmatmul -> ConvInteger / MatMulInteger."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.qint import (
    DequantizeOp,
    QConvOp,
    QMatMulOp,
    QuantizationOp,
    QuantizeOp,
)
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.op_table import check_channels_first, exporter


@exporter(QuantizeOp, DequantizeOp)
def export_quantization(e, op: QuantizationOp):
    if op.arithmetic_name != op.ARITHMETIC[0]:
        raise FrontendError(
            f"cannot export {op.name} with arithmetic {op.arithmetic_name!r} (a "
            "TFLite runtime's): ONNX's QuantizeLinear/DequantizeLinear compute "
            "otherwise (convert-to-int without recipe)"
        )
    quantized = op.output if isinstance(op, QuantizeOp) else op.input
    zero_point_dtype = numpy_dtype(quantized.type.element_type)  # type: ignore[attr-defined]
    scales, zero_points = op.scales, op.zero_points.astype(zero_point_dtype)
    axis = None
    if len(scales) == 1:
        scales, zero_points = scales[0], zero_points[0]
    elif (x := ranked(op.input)) is not None:
        axis = op.channel_axis(len(x.get_shape()))
    else:
        raise FrontendError(f"cannot export per-axis {op.name} of an unranked tensor")
    op_type = "QuantizeLinear" if isinstance(op, QuantizeOp) else "DequantizeLinear"
    inputs = [
        op.input,
        e.initializer(scales, "scale"),
        e.initializer(zero_points, "zp"),
    ]
    e.node(op_type, inputs, [op.output], e.attrs(axis=axis))


@exporter(QConvOp)
def export_qconv(e, op: QConvOp):
    """ConvInteger (+ an int32 Add of the bias per output channel): the exact
    i32 accumulator, which onnx_int8.py keeps where a float activation reads
    its dequantization."""
    check_channels_first(e, op)
    x, w, *bias = op.operands
    skipped = ("data_layout", "input_zp", "weight_zp")
    attrs = {k: v for k, v in op.properties.items() if k not in skipped}
    inputs: list = [
        x,
        w,
        e.initializer(np.int8(int_value(op.properties, "input_zp", 0)), "x_zp"),
    ]
    if (weight_zp := int_value(op.properties, "weight_zp", 0)) != 0:
        inputs.append(e.initializer(np.int8(weight_zp), "w_zp"))
    _integer_then_bias(
        e, "ConvInteger", inputs, op.output, bias, e.props_to_attrs(attrs)
    )


@exporter(QMatMulOp)
def export_qmatmul(e, op: QMatMulOp):
    """MatMulInteger, the exact i32 product."""
    inputs = [
        op.lhs, op.rhs,
        e.initializer(np.int8(int_value(op.properties, "a_zp", 0)), "a_zp"),
        e.initializer(np.int8(int_value(op.properties, "b_zp", 0)), "b_zp"),
    ]  # fmt: skip
    e.node("MatMulInteger", inputs, [op.output])


def _integer_then_bias(e, op_type: str, inputs, output, bias, attrs) -> None:
    if not bias:
        e.node(op_type, inputs, [output], attrs)
        return
    acc = e.fresh(f"{e.name(output)}_acc")
    e.node(op_type, inputs, [acc], attrs)
    rank = len(ranked(output).get_shape())  # type: ignore[union-attr]
    shape = e.initializer(np.array([-1] + [1] * (rank - 2), np.int64), "bias_shape")
    reshaped = e.fresh(f"{e.name(output)}_bias")
    e.node("Reshape", [bias[0], shape], [reshaped])
    e.node("Add", [acc, reshaped], [output])
