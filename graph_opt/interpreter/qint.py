"""Reference implementations of the integer ops (ONNX and TOSA 1.0 semantics)."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.utils.exceptions import InterpretationError

from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.conv import ConvOp, resolve_pads
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.layout import CHANNELS_LAST
from graph_opt.dialects.nn.qint import (
    DequantizeOp,
    QConvOp,
    QConvTransposeOp,
    QMatMulOp,
    QuantizationOp,
    QuantizeOp,
    RescaleOp,
    int_range,
)
from graph_opt.interpreter.conv import (
    conv_nchw,
    filter_to_oihw,
    to_channels_first,
    to_channels_last,
    transposed_conv,
)
from graph_opt.quantization.boundary_arithmetic import (
    dequantize_values,
    quantize_codes,
)
from graph_opt.quantization.fixed_point import (
    apply_scale,
    apply_scale_fp32,
    scale32_in_range,
)


def quantization_params(op: QuantizationOp, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """Scale (f32) and zero point (int64), shaped to broadcast along the op's axis."""
    axis = op.channel_axis(rank)
    shape = () if axis is None else tuple(-1 if i == axis else 1 for i in range(rank))
    return op.scales.reshape(shape), op.zero_points.reshape(shape)


def read_as(x: np.ndarray, unsigned: bool) -> np.ndarray:
    """Integer data as int64, its bits read as unsigned when asked (TOSA's zero_extend)."""
    if unsigned and x.dtype.kind == "i":
        x = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    return x.astype(np.int64)


@register_impls
class QIntFunctions(InterpreterFunctions):
    @impl(QuantizeOp)
    def run_quantize(self, interpreter: Interpreter, op: QuantizeOp, args):
        (x,) = args
        scale, zero_point = quantization_params(op, x.ndim)
        el = op.output.type.element_type  # type: ignore[attr-defined]
        low, high = int_range(el)
        out = quantize_codes(x, scale, zero_point, op.arithmetic_name, low, high)
        return (out.astype(numpy_dtype(el)),)

    @impl(DequantizeOp)
    def run_dequantize(self, interpreter: Interpreter, op: DequantizeOp, args):
        (x,) = args
        scale, zero_point = quantization_params(op, x.ndim)
        return (dequantize_values(x, scale, zero_point, op.arithmetic_name),)

    @impl(QConvOp)
    def run_qconv(self, interpreter: Interpreter, op: QConvOp, args):
        x, w, *bias = args
        props = op.properties
        x = x.astype(np.int64) - int_value(props, "input_zp", 0)
        w = w.astype(np.int64) - int_value(props, "weight_zp", 0)
        channels_last = op.layout == CHANNELS_LAST
        if channels_last:
            x, w = to_channels_first(x), filter_to_oihw(w)
        n = x.ndim - 2
        strides, dilations, pads, auto_pad = ConvOp.window_props(props, n)
        pads = resolve_pads(
            auto_pad, pads, list(x.shape[2:]), list(w.shape[2:]), strides, dilations
        )
        out = conv_nchw(x, w, strides, pads, dilations, int_value(props, "group", 1))
        if bias:
            out = out + bias[0].astype(np.int64).reshape((1, -1) + (1,) * n)
        if channels_last:
            out = to_channels_last(out)
        return (np.ascontiguousarray(out).astype(np.int32),)

    @impl(QConvTransposeOp)
    def run_qconv_transpose(self, interpreter: Interpreter, op: QConvTransposeOp, args):
        x, w, *bias = args
        x = x.astype(np.int64) - int_value(op.properties, "input_zp", 0)
        w = w.astype(np.int64) - int_value(op.properties, "weight_zp", 0)
        b = bias[0].astype(np.int64) if bias else None
        return (transposed_conv(op, x, w, b).astype(np.int32),)

    @impl(QMatMulOp)
    def run_qmatmul(self, interpreter: Interpreter, op: QMatMulOp, args):
        lhs, rhs = args
        lhs = lhs.astype(np.int64) - int_value(op.properties, "a_zp", 0)
        rhs = rhs.astype(np.int64) - int_value(op.properties, "b_zp", 0)
        return (np.matmul(lhs, rhs).astype(np.int32),)

    @impl(RescaleOp)
    def run_rescale(self, interpreter: Interpreter, op: RescaleOp, args):
        (x,) = args
        in_unsigned, out_unsigned = (
            op.flag("input_unsigned"),
            op.flag("output_unsigned"),
        )
        values = read_as(x, in_unsigned) - int_value(op.properties, "input_zp", 0)
        multipliers, shifts = op.multipliers, op.shifts
        if not op.flag("per_channel"):
            multipliers, shifts = multipliers[0], shifts[0]
        if op.rounding == "FP32_HALF_EVEN":
            scaled = apply_scale_fp32(values, multipliers, shifts)
        elif op.is_scale32 and not scale32_in_range(values, shifts).all():
            raise InterpretationError(
                "nn.rescale: a value exceeds apply_scale_32's range for its shift"
            )
        else:
            scaled = apply_scale(
                values, multipliers, shifts, op.rounding == "DOUBLE_ROUND"
            )
        el = op.output.type.element_type  # type: ignore[attr-defined]
        low, high = int_range(el, out_unsigned)
        out = np.clip(scaled + int_value(op.properties, "output_zp", 0), low, high)
        dtype = numpy_dtype(el)
        if out_unsigned and dtype.kind == "i":
            return (out.astype(np.dtype(f"u{dtype.itemsize}")).view(dtype),)
        return (out.astype(dtype),)
