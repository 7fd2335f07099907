"""Lowering of nn.quantize, nn.dequantize and nn.rescale to TOSA, as upstream's TFLite legalization does.

quantize: round_half_even(x / scale) + zero_point, saturated, bit for bit
as ONNX's QuantizeLinear divides (`quantized`); dequantize: (cast_f32(x) -
zero_point) * scale; rescale maps 1:1 to tosa.rescale. TOSA tensors are
signless: a ui8 value that only goes from nn.quantize to nn.dequantize (a QDQ
model's activations) is held as i8 u - 128 with both zero points moved by -128,
the same integers in the float math, so exact; a ui8 function argument that
only unsigned-input rescales read, or a ui8 result of an unsigned-output
rescale that is only returned (convert-to-int{integer-io=true unsigned-io=true}),
is held as i8 with the same bits, as TOSA's RESCALE reads and writes unsigned
values; other ui8/ui16 tensors do not lower.
nn.qconv and nn.qmatmul lower with their float forms (tosa_conv, tosa_matmul).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func, tosa
from xdsl.dialects.builtin import (
    BoolAttr,
    FunctionType,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
    f32,
    i1,
    i8,
    i32,
)
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import Rewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.base import i64_array, int_value
from graph_opt.dialects.nn.qint import (
    DequantizeOp,
    QuantizationOp,
    QuantizeOp,
    RescaleOp,
    int_range,
)
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.lowering.lowering_pattern import LoweringPattern
from graph_opt.lowering.tosa_builder import TosaBuilder, element_of, shape_of
from graph_opt.quantization.fake_quant_math import (
    channel_shape,
    flush,
    inverse_scale,
    nudge,
)


def is_signless(value: SSAValue) -> bool:
    element = element_of(value)
    return (
        not isinstance(element, IntegerType)
        or element.signedness.data == Signedness.SIGNLESS
    )


def per_axis(op: QuantizationOp, values: np.ndarray, rank: int) -> np.ndarray:
    """Scales or zero points shaped to broadcast along the op's axis (all 1s per tensor)."""
    axis = op.channel_axis(rank)
    shape = [1] * rank
    if axis is not None:
        shape[axis] = -1
    return values.reshape(shape)


def cast(b: TosaBuilder, x: SSAValue, element) -> SSAValue:
    return b.add(
        tosa_ext.CastOp.build(
            operands=[x], result_types=[TensorType(element, shape_of(x))]
        )
    )


def wrapped(value: int, element: IntegerType) -> int:
    """A zero point as the signless type stores it (unsigned 128 is i8 -128)."""
    width = element.width.data
    return ((value + (1 << (width - 1))) % (1 << width)) - (1 << (width - 1))


UINT8 = IntegerType(8, Signedness.UNSIGNED)
UINT8_SHIFT = 128


def shift_unsigned_qdq(module: ModuleOp) -> int:
    """ui8 quantize -> dequantize values become i8 holding u - 128 (zero points
    moved by -128 on both ends); how many were shifted."""
    shifted = 0
    for op in list(module.walk()):
        if not isinstance(op, QuantizeOp) or element_of(op.results[0]) != UINT8:
            continue
        users = [use.operation for use in op.results[0].uses]
        if not users or not all(isinstance(u, DequantizeOp) for u in users):
            continue
        for quantization in (op, *users):
            quantization.properties["zero_point"] = i64_array(
                [int(z) - UINT8_SHIFT for z in quantization.zero_points]
            )
        Rewriter.replace_value_with_new_type(
            op.results[0], TensorType(i8, shape_of(op.results[0]))
        )
        shifted += 1
    return shifted


def signless_unsigned_boundaries(module: ModuleOp) -> None:
    """ui8 arguments read only by unsigned-input rescales, and ui8 results of
    unsigned-output rescales only returned, as i8 holding the same bits."""
    for function in module.walk():
        if not isinstance(function, func.FuncOp) or function.is_declaration:
            continue
        for arg in list(function.args):
            users = [use.operation for use in arg.uses]
            if _is_uint8_tensor(arg) and all(
                isinstance(u, RescaleOp) and u.flag("input_unsigned") for u in users
            ):
                Rewriter.replace_value_with_new_type(arg, TensorType(i8, shape_of(arg)))
        for ret in function.walk():
            if not isinstance(ret, func.ReturnOp) or ret.parent_op() is not function:
                continue
            for value in ret.operands:
                rescale = value.owner
                if (
                    isinstance(rescale, RescaleOp)
                    and rescale.flag("output_unsigned")
                    and _is_uint8_tensor(value)
                    and all(isinstance(u.operation, func.ReturnOp) for u in value.uses)
                ):
                    Rewriter.replace_value_with_new_type(
                        value, TensorType(i8, shape_of(value))
                    )
            function.function_type = FunctionType.from_lists(
                [a.type for a in function.args], [v.type for v in ret.operands]
            )


def _is_uint8_tensor(value: SSAValue) -> bool:
    t = ranked(value)
    return t is not None and t.element_type == UINT8


def quantized(
    b: TosaBuilder,
    x: SSAValue,
    scales: np.ndarray,
    zero_points: np.ndarray,
    element,
    half_away: bool = False,
) -> SSAValue:
    """nn.quantize's saturate(round_half_even(x / scale) + zero_point) in
    float32, bit for bit, without a division (TOSA has none): q = x * (1 /
    scale) is within an ulp or two of the float32 quotient, so the level is
    floor(q) or one more; which one, and whether the quotient rounds onto the
    tie t = floor(q) + 0.5, is decided exactly by x - t * scale (scale split
    in two 12-bit halves, each product exact) against the scale times half
    an ulp of t. The zero point is added to the integer level. `half_away`
    rounds a quotient on the tie away from zero (TFLite's reference
    QUANTIZE), saturating where TFLite's int32 conversion overflows (|x /
    scale| >= 2^31)."""
    from graph_opt.lowering.tosa_compare import elementwise  # it imports cast

    def select(condition: SSAValue, yes: SSAValue, no: SSAValue) -> SSAValue:
        return elementwise(b, tosa_ext.SelectOp, [condition, yes, no], f32)

    def greater(op_type, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return elementwise(b, op_type, [lhs, rhs], i1)

    low, high = int_range(element)
    scales = scales.astype(np.float32)
    high_half = (scales.view(np.uint32) & np.uint32(0xFFFFF000)).view(np.float32)

    def mul(value: SSAValue, constant) -> SSAValue:
        return b.binary(tosa.MulOp, value, b.const(constant, f32))

    def bounded(value: SSAValue, lowest, highest) -> SSAValue:
        value = b.binary(tosa_ext.MinimumOp, value, b.const(highest, f32))
        return b.binary(tosa_ext.MaximumOp, value, b.const(lowest, f32))

    q = bounded(
        mul(x, np.float32(1) / scales), low - zero_points - 1, high - zero_points + 1
    )
    level = b.unary(tosa_ext.FloorOp, q)
    tie = b.binary(tosa.AddOp, level, b.const_like(level, 0.5))
    residual = b.binary(
        tosa.SubOp,
        b.binary(tosa.SubOp, x, mul(tie, high_half)),
        mul(tie, scales - high_half),
    )
    # half an ulp of |t| (in [0.5, 512)) times the scale: 2^-25 per binade up
    magnitude = b.unary(tosa_ext.AbsOp, tie)
    margin = b.const(scales * np.float32(2.0**-25), f32)
    two, one = b.const_like(tie, 2.0), b.const_like(tie, 1.0)
    for power in range(9):
        above = greater(tosa_ext.GreaterEqualOp, magnitude, b.const_like(tie, 2**power))
        margin = b.binary(tosa.MulOp, margin, select(above, two, one))
    if half_away:  # on the tie t, up when t > 0, i.e. level >= 0
        zero = b.const_like(tie, 0.0)
        on_tie = select(greater(tosa_ext.GreaterEqualOp, level, zero), one, zero)
    else:  # up when the level is odd
        on_tie = b.binary(
            tosa.SubOp,
            level,
            mul(b.unary(tosa_ext.FloorOp, mul(level, np.float32(0.5))), np.float32(2)),
        )
    below = greater(tosa_ext.GreaterOp, mul(margin, np.float32(-1)), residual)
    step = select(below, b.const_like(tie, 0.0), on_tie)
    step = select(greater(tosa_ext.GreaterOp, residual, margin), one, step)
    level = bounded(
        b.binary(tosa.AddOp, level, step), low - zero_points, high - zero_points
    )
    shifted = b.binary(tosa.AddOp, cast(b, level, i32), b.const(zero_points, i32))
    return cast(b, shifted, element)


class LowerQuantization(LoweringPattern):
    """nn.quantize and nn.dequantize -> tosa.mul / tosa.add / tosa.cast / tosa.clamp."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, QuantizeOp | DequantizeOp):
            return
        if not (is_signless(op.operands[0]) and is_signless(op.results[0])):
            self.decline(op, "TOSA tensors are signless: unsigned types do not lower")
            return
        if op.arithmetic_name not in (op.ARITHMETIC[0], "divide-half-away"):
            self.decline(op, f"arithmetic {op.arithmetic_name!r} (a TFLite runtime's, "
                         "convert-to-int{recipe=...}) has no TOSA lowering here")  # fmt: skip
            return
        b = TosaBuilder()
        x = op.operands[0]
        rank = len(shape_of(x))
        scales = per_axis(op, op.scales.astype(np.float32), rank)
        zero_points = per_axis(op, op.zero_points, rank)
        if isinstance(op, QuantizeOp):
            half_away = op.arithmetic_name == "divide-half-away"
            y = quantized(
                b, x, scales, zero_points, element_of(op.results[0]), half_away
            )
        else:
            shifted = b.binary(tosa.SubOp, cast(b, x, f32), b.const(zero_points, f32))
            y = b.binary(tosa.MulOp, shifted, b.const(scales, f32))
        rewriter.replace(op, b.ops, [y])


class LowerFakeQuant(LoweringPattern):
    """nn.fake_quant left in a graph -> TensorFlow's float arithmetic in TOSA ops.

    The nudged range, scale, 1 / scale and the zero level are computed at compile
    time as `fake_quant_math` does; at run time: clamp to the nudged range, minus
    its min, times 1 / scale (per tensor TF divides: the reciprocal may differ by
    an ulp, which moves a value within an ulp of a rounding tie by one level),
    floor(steps - zero level + 0.5) times scale; channels of range (0, 0) give 0.
    Denormal inputs are not flushed to zero as TF's kernels do (a difference
    far below float tolerance).
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, FakeQuantOp):
            return
        x = op.input
        if element_of(x) != f32:
            self.decline(op, "only f32 fake quantization lowers to TOSA")
            return
        mins, maxs, bits, narrow = op.mins, op.maxs, op.bits, op.is_narrow
        nudged = nudge(mins, maxs, bits, narrow)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            inv_scale = (
                inverse_scale(mins, maxs, bits, narrow)
                if op.axis_value is not None
                else np.float32(1) / nudged.scale
            )
            zero_level = np.floor(
                flush(
                    flush(-nudged.min * inverse_scale(mins, maxs, bits, narrow))
                    + np.float32(0.5)
                )
            )
        rank, count = len(shape_of(x)), len(mins)
        shape = [
            count if d == -1 else d
            for d in channel_shape(rank, op.axis_value) or (1,) * rank
        ]
        b = TosaBuilder()

        def channels(values) -> SSAValue:
            return b.const(np.asarray(values, np.float32).reshape(shape), f32)

        low = channels(nudged.min)
        clamped = b.binary(
            tosa_ext.MaximumOp,
            b.binary(tosa_ext.MinimumOp, x, channels(nudged.max)),
            low,
        )
        steps = b.binary(
            tosa.MulOp, b.binary(tosa.SubOp, clamped, low), channels(inv_scale)
        )
        centered = b.binary(
            tosa.AddOp,
            b.binary(tosa.SubOp, steps, channels(zero_level)),
            b.const_like(x, 0.5),
        )
        level = b.unary(tosa_ext.FloorOp, centered)
        y = b.binary(tosa.MulOp, level, channels(nudged.scale))
        empty = (flush(mins) == 0) & (flush(maxs) == 0)
        if empty.any():
            mask = b.const(empty.reshape(shape), i1)
            y = b.add(
                tosa_ext.SelectOp.build(
                    operands=[mask, b.const_like(x, 0.0), y], result_types=[y.type]
                )
            )
        rewriter.replace(op, b.ops, [y])


class LowerRescale(LoweringPattern):
    """nn.rescale -> tosa.rescale (multiplier and shift as constant operands)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, RescaleOp):
            return
        x, y = op.operands[0], op.results[0]
        if not (is_signless(x) and is_signless(y)):
            self.decline(op, "TOSA tensors are signless: unsigned types do not lower")
            return
        if op.rounding == "FP32_HALF_EVEN":
            self.decline(op, "rounds in float32 as XNNPACK (convert-to-int"
                         "{recipe=xnnpack}): TOSA's RESCALE has no such rounding")  # fmt: skip
            return
        b = TosaBuilder()
        multiplier_type = op.multiplier.elt_type
        operands = [
            x,
            b.const(op.multipliers, multiplier_type),
            b.const(op.shifts, op.shift.elt_type),
            b.scalar(
                wrapped(int_value(op.properties, "input_zp", 0), element_of(x)),
                element_of(x),
            ),
            b.scalar(
                wrapped(int_value(op.properties, "output_zp", 0), element_of(y)),
                element_of(y),
            ),
        ]
        props = {
            "scale32": BoolAttr.from_bool(op.is_scale32),
            "rounding_mode": tosa.RoundingModeAttr(tosa.RoundingMode(op.rounding)),
            "per_channel": BoolAttr.from_bool(op.flag("per_channel")),
            "input_unsigned": BoolAttr.from_bool(op.flag("input_unsigned")),
            "output_unsigned": BoolAttr.from_bool(op.flag("output_unsigned")),
        }
        rescale = tosa.RescaleOp.build(
            operands=operands, properties=props, result_types=[y.type]
        )
        rewriter.replace(op, [*b.ops, rescale], [rescale.results[0]])


QUANT_PATTERNS = (LowerQuantization, LowerRescale, LowerFakeQuant)
