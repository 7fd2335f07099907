"""Quantization parameters for convert-to-int: what a fake quantization means in
int8, integer weights, and builders of the integer ops between scales."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import IntegerType, Signedness, TensorType, i8, i32
from xdsl.ir import Operation, SSAValue

from graph_opt.dialects.nn.base import f32_attr, i64_array
from graph_opt.dialects.nn.elementwise import ClipOp
from graph_opt.dialects.nn.qint import (
    DequantizeOp,
    QuantizeOp,
    RescaleOp,
    quantization_props,
    rescale_props,
)
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.dialects.nn.tensor_ops import TransposeOp
from graph_opt.quantization.fake_quant_math import fake_quant, nudge, quant_range
from graph_opt.quantization.fixed_point import (
    MAX_SHIFT,
    MIN_SHIFT,
    fp32_multiplier,
    quantize_multipliers,
)
from graph_opt.quantization.tensor_quantization import record_quantization

INT8_MIN, INT8_MAX = -128, 127
INT8_OFFSET = 128
"""Fake-quant levels are 0..2^bits-1; int8 values are the levels minus 128."""
UI8 = IntegerType(8, Signedness.UNSIGNED)


@dataclass(frozen=True)
class ActivationParams:
    """A per-tensor fake quantization as int8: real = (q - zero_point) * scale,
    with q in [low, high] (narrower than int8 for narrow range or fewer bits)."""

    scale: float
    zero_point: int
    low: int
    high: int


@dataclass(frozen=True)
class IntValue:
    """An int8 value and the per-tensor parameters that give its real value."""

    value: SSAValue
    scale: float
    zero_point: int


def is_signless_i8(value: SSAValue) -> bool:
    t = ranked(value)
    return (
        t is not None
        and isinstance(t.element_type, IntegerType)
        and t.element_type.width.data == 8
        and t.element_type.signedness.data == Signedness.SIGNLESS
    )


def activation_params(fq: FakeQuantOp) -> ActivationParams | None:
    """The int8 parameters of a per-tensor fake quantization of at most 8 bits."""
    if fq.axis is not None or len(fq.mins) != 1 or fq.bits > 8:
        return None
    nudged = nudge(fq.mins, fq.maxs, fq.bits, fq.is_narrow)
    scale = float(nudged.scale[0])
    if not np.isfinite(scale) or scale <= 0:
        return None
    qmin, qmax = quant_range(fq.bits, fq.is_narrow)
    return ActivationParams(
        scale,
        int(nudged.zero_point[0]) - INT8_OFFSET,
        qmin - INT8_OFFSET,
        qmax - INT8_OFFSET,
    )


def levels(fq: FakeQuantOp, params: ActivationParams, values) -> np.ndarray:
    """The int8 values that `fq` maps real values to (its rounding, clamped)."""
    out = fake_quant(
        np.asarray(values, np.float32), fq.mins, fq.maxs, fq.bits, fq.is_narrow
    )
    return np.rint(out / np.float32(params.scale)).astype(np.int64) + params.zero_point


def int_value_of(value: SSAValue) -> IntValue | None:
    """The int8 value behind a float value that a per-tensor nn.dequantize defines."""
    deq = value.owner
    if not isinstance(deq, DequantizeOp) or len(deq.scales) != 1:
        return None
    if not is_signless_i8(deq.input):
        return None
    return IntValue(deq.input, float(deq.scales[0]), int(deq.zero_points[0]))


@dataclass(frozen=True)
class IntWeights:
    """Fake-quantized constant weights as int8, one scale per channel of `axis`
    (a single one per tensor) and one zero point."""

    values: np.ndarray
    scales: np.ndarray
    zero_point: int


def int_weights(
    fq: FakeQuantOp, weights: np.ndarray, channel_axis: int
) -> IntWeights | None:
    """The int8 weights of a fake quantization of constant weights, per tensor or
    per channel along `channel_axis`; None when the zero points differ per channel."""
    if fq.bits > 8:
        return None
    axis = fq.axis_value
    if axis is not None and axis != channel_axis and len(fq.mins) != 1:
        return None
    nudged = nudge(fq.mins, fq.maxs, fq.bits, fq.is_narrow)
    scales = nudged.scale.astype(np.float64)
    if not (np.isfinite(scales) & (scales > 0)).all():
        return None
    if len(set(nudged.zero_point.tolist())) != 1:
        return None
    fake = fake_quant(weights, fq.mins, fq.maxs, fq.bits, fq.is_narrow, axis)
    shape = [1] * weights.ndim
    if axis is not None:
        shape[axis] = -1
    steps = np.rint(fake / nudged.scale.reshape(shape))
    zero_point = int(nudged.zero_point[0]) - INT8_OFFSET
    return IntWeights((steps + zero_point).astype(np.int8), scales, zero_point)


def dequantize(value: SSAValue, scale: float, zero_point: int) -> DequantizeOp:
    """The float value of an int8 value; its scale and zero point are recorded
    on the op computing it too, where exporters find them after the
    dequantize is gone."""
    if isinstance(value.owner, Operation) and not isinstance(value.owner, QuantizeOp):
        record_quantization(value.owner, [scale], zero_point)
    return DequantizeOp.create_inferred(
        [value], quantization_props([scale], [zero_point])
    )


def record_weights(op: Operation, weights: IntWeights, axis: int) -> None:
    """Record the weights' scales on their constant (per channel along `axis`)."""
    per_channel = len(weights.scales) > 1
    record_quantization(
        op, weights.scales, weights.zero_point, axis if per_channel else None
    )


def quantize(
    value: SSAValue, params: ActivationParams, unsigned: bool = False
) -> QuantizeOp:
    """nn.quantize to int8, or to uint8 (zero point + 128) when `unsigned`."""
    t = ranked(value)
    assert t is not None
    offset = INT8_OFFSET if unsigned else 0
    return QuantizeOp.create_inferred(
        [value],
        quantization_props([params.scale], [params.zero_point + offset]),
        [TensorType(UI8 if unsigned else i8, t.get_shape())],
    )


def unsigned_to_int8(value: SSAValue, zero_point: int) -> RescaleOp:
    """uint8 with zero point `zero_point` + 128 to int8 (TOSA: a unit rescale)."""
    props = rescale_props(
        [1 << 30], [30], zero_point + INT8_OFFSET, zero_point, input_unsigned=True
    )
    shape = ranked(value).get_shape()  # type: ignore[union-attr]
    return RescaleOp.create_inferred([value], props, [TensorType(i8, shape)])


def int8_to_unsigned(value: SSAValue, zero_point: int) -> RescaleOp:
    props = rescale_props(
        [1 << 30], [30], zero_point, zero_point + INT8_OFFSET, output_unsigned=True
    )
    shape = ranked(value).get_shape()  # type: ignore[union-attr]
    return RescaleOp.create_inferred([value], props, [TensorType(UI8, shape)])


def clamp(value: SSAValue, low: int, high: int) -> ClipOp:
    return ClipOp.create_inferred(
        [value], {"min": f32_attr(float(low)), "max": f32_attr(float(high))}
    )


def rescale(
    value: SSAValue,
    real_scales: np.ndarray,
    input_zp: int,
    output_zp: int,
    out_element=i8,
) -> RescaleOp | None:
    """nn.rescale by `real_scales` (one, or one per last-dim index); None when a
    scale has no TOSA multiplier and shift."""
    try:
        multipliers, shifts = quantize_multipliers(np.asarray(real_scales))
    except ValueError:
        return None
    return fixed_rescale(value, multipliers, shifts, input_zp, output_zp, out_element)


def fixed_rescale(
    value: SSAValue,
    multipliers: np.ndarray,
    shifts: np.ndarray,
    input_zp: int,
    output_zp: int,
    out_element=i8,
    rounding_mode: str = "SINGLE_ROUND",
) -> RescaleOp:
    """nn.rescale by the given multipliers and shifts (one, or one per last-dim index)."""
    t = ranked(value)
    assert t is not None
    props = rescale_props(
        multipliers, shifts, input_zp, output_zp,
        rounding_mode=rounding_mode, per_channel=len(multipliers) > 1,
    )  # fmt: skip
    return RescaleOp.create_inferred(
        [value], props, [TensorType(out_element, t.get_shape())]
    )


def rescale_channels(
    acc: SSAValue,
    real_scales: np.ndarray,
    output_zp: int,
    channel_axis: int,
    fp32: bool = False,
) -> list[Operation] | None:
    """Ops rescaling an i32 accumulator to int8; per channel along `channel_axis`,
    moved last around the rescale (TOSA rescales along the last dim). With
    `fp32`, the float32 `real_scales` multiply in float32 (FP32_HALF_EVEN)."""
    rank = len(ranked(acc).get_shape())  # type: ignore[union-attr]
    if len(real_scales) == 1 or channel_axis == rank - 1:
        op = requantize(acc, real_scales, output_zp, fp32)
        return None if op is None else [op]
    to_last = [d for d in range(rank) if d != channel_axis] + [channel_axis]
    back = [to_last.index(d) for d in range(rank)]
    moved = TransposeOp.create_inferred([acc], {"perm": i64_array(to_last)})
    op = requantize(moved.output, real_scales, output_zp, fp32)
    if op is None:
        return None
    restored = TransposeOp.create_inferred([op.output], {"perm": i64_array(back)})
    return [moved, op, restored]


def ruy_rescale_channels(
    acc: SSAValue, real_scales: np.ndarray, output_zp: int, channel_axis: int
) -> list[Operation] | None:
    """An i32 accumulator to int8 as ruy requantizes (TFLite's builtin conv
    and fully connected), per channel along the last dim (the accumulators
    TFLite writes: NHWC convs, fully connected)."""
    rank = len(ranked(acc).get_shape())  # type: ignore[union-attr]
    if len(real_scales) > 1 and channel_axis != rank - 1:
        return None  # per channel along another axis: not a TFLite layer
    try:
        multipliers, shifts = quantize_multipliers(np.asarray(real_scales))
    except ValueError:
        return None
    return ruy_steps(acc, multipliers, shifts, output_zp, i8)


def ruy_steps(
    acc: SSAValue, multipliers: np.ndarray, shifts: np.ndarray, output_zp: int, out
) -> list[Operation]:
    """acc x multiplier / 2^shift as ruy computes it: the rounding doubling
    high multiply, then a right shift rounding half up (not away from zero,
    as gemmlowp's):

        rescale by multiplier, shift 31 (- left shift) -> i32
        rescale by 2^30, shift 30 + right shift -> `out`
    """
    right = np.maximum(shifts - 31, 0)
    high = fixed_rescale(acc, multipliers, shifts - right, 0, 0, i32)
    unit = np.full(len(shifts), 1 << 30)
    return [high, fixed_rescale(high.output, unit, 30 + right, 0, output_zp, out)]


def requantize(
    acc: SSAValue, real_scales: np.ndarray, output_zp: int, fp32: bool
) -> RescaleOp | None:
    """An accumulator to int8 by fixed-point multipliers, or, with `fp32`, by
    the float32 scales themselves as XNNPACK multiplies (FP32_HALF_EVEN)."""
    if not fp32:
        return rescale(acc, real_scales, 0, output_zp)
    pairs = [fp32_multiplier(np.float32(s)) for s in real_scales]
    multipliers, shifts = (np.array(column) for column in zip(*pairs, strict=True))
    if shifts.min() < MIN_SHIFT or shifts.max() > MAX_SHIFT:
        return None  # a scale XNNPACK does not take
    return fixed_rescale(acc, multipliers, shifts, 0, output_zp, i8, "FP32_HALF_EVEN")


def int32_bias(bias: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """A float bias in accumulator units (scale = input scale * weight scale), rounded."""
    info = np.iinfo(np.int32)
    steps = np.rint(bias.astype(np.float64) / scales)
    return np.clip(steps, info.min, info.max).astype(np.int32)


def group_channel_scales(scales: np.ndarray, group: int) -> np.ndarray:
    """A transposed conv's accumulator scale per output channel from its filter's
    scales per channel of a group (output channel g * C_out/group + j has
    scale j): repeated over the groups; a single (per-tensor) scale stays one."""
    return scales if len(scales) == 1 else np.tile(scales, group)
