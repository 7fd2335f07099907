"""nn.quantize / nn.dequantize -> ONNX QuantizeLinear / DequantizeLinear."""

from __future__ import annotations

from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.qint import DequantizeOp, QuantizationOp, QuantizeOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.op_table import exporter


@exporter(QuantizeOp, DequantizeOp)
def export_quantization(e, op: QuantizationOp):
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
