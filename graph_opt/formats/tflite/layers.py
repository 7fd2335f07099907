"""The integer layers of an int8 graph as TFLite operators.

An integer layer is several ops here and one operator in TFLite:

    nn.qconv / nn.qmatmul (+ i32 bias)      CONV_2D, DEPTHWISE_CONV_2D,
      -> nn.rescale to int8                 FULLY_CONNECTED: the requantization
      -> nn.clip (optional)                 and fused activation inside
    nn.rescale int8->i32 (x2) -> nn.add     ADD
      -> nn.rescale -> nn.clip
    nn.rescale int8->i32 -> nn.reduce_sum   MEAN
      -> nn.rescale -> nn.clip

TFLite computes each requantization multiplier from the tensors' float32
scales (input * filter / output, in double, as quantize_multiplier); the
rescale's own multiplier is checked against it, and a mismatch is warned of
(the two would round differently). A clamp that no fused activation computes
becomes MAXIMUM/MINIMUM by int8 constants, exactly."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation, SSAValue

from graph_opt.dialects.nn.base import float_value, int_value
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.conv import ConvOp, resolve_pads
from graph_opt.dialects.nn.elementwise import AddOp, ClipOp
from graph_opt.dialects.nn.layout import CHANNELS_LAST
from graph_opt.dialects.nn.qint import (
    QConvOp,
    QMatMulOp,
    RescaleOp,
)
from graph_opt.dialects.nn.reduce import ReduceSumOp, reduced_axes
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.formats.tflite.exporter import TFLiteExporter
from graph_opt.formats.tflite.flatbuffer import Tensor, schema
from graph_opt.formats.tflite.recipe_check import (
    check_add,
    check_mean,
    check_rounding,
    ir_mean,
)
from graph_opt.quantization.fixed_point import fp32_multiplier, quantize_multipliers
from graph_opt.quantization.tensor_quantization import TensorQuantization
from graph_opt.remarks import warn

INT8_MIN, INT8_MAX = -128, 127


def int8(value: SSAValue) -> bool:
    t = ranked(value)
    return (
        t is not None
        and isinstance(t.element_type, IntegerType)
        and t.element_type.width.data == 8
    )


def tensor_quantization(ex: TFLiteExporter, tensor: int) -> TensorQuantization:
    q = ex.graph.tensors[tensor].quantization
    assert q is not None  # int8 tensors are made with one
    return q


def int8_input(
    ex: TFLiteExporter, op: Operation, value: SSAValue, zero_point: int
) -> int:
    """The int8 tensor of `value`, checked to have the zero point `op` subtracts."""
    tensor = ex.tensor(value)
    if tensor_quantization(ex, tensor).zero_point != zero_point:
        raise ex.fail(op, f"reads {ex.name_of(value)} with zero point {zero_point}, "
                      f"not its recorded {tensor_quantization(ex, tensor).zero_point}")  # fmt: skip
    return tensor


# Requantization and activations


def requantization(
    ex: TFLiteExporter, op: Operation, acc: SSAValue
) -> tuple[RescaleOp, ClipOp | None]:
    """The nn.rescale to int8 that alone reads `acc`, and the clamp that alone reads it."""
    users = [use.operation for use in acc.uses]
    rescale = users[0] if len(users) == 1 else None
    if isinstance(rescale, RescaleOp) and not int8(rescale.output):
        after = [use.operation for use in rescale.output.uses]
        if len(after) == 1 and isinstance(after[0], RescaleOp):
            ex.done.add(rescale)  # ruy's first step (recipe=tflite-builtin)
            rescale = after[0]
    if not isinstance(rescale, RescaleOp) or not int8(rescale.output):
        raise ex.fail(
            op, "its i32 result is not rescaled to int8 alone (no TFLite form)"
        )
    ex.done.add(rescale)
    clip = None
    after = [use.operation for use in rescale.output.uses]
    if len(after) == 1 and isinstance(after[0], ClipOp):
        clip = after[0]
        ex.done.add(clip)
    return rescale, clip


def requantized_output(
    ex: TFLiteExporter, op: Operation, acc: SSAValue
) -> tuple[RescaleOp, int, Callable[[], None], int]:
    """(rescale, output tensor of the TFLite operator, a function writing the
    clamp operators it needs after it, fused activation code)."""
    fb = schema()
    rescale, clip = requantization(ex, op, acc)
    final = clip.output if clip is not None else rescale.output
    out_q = ex.quantization(final) or ex.quantization(rescale.output)
    if out_q is None:
        raise ex.fail(
            rescale,
            "no scale recorded for this int8 value (convert-to-int records them)",
        )
    if int_value(rescale.properties, "output_zp", 0) != out_q.zero_point:
        raise ex.fail(rescale, "its output zero point is not the recorded one")
    low, high = INT8_MIN, INT8_MAX
    if clip is not None:
        low = int(float_value(clip.properties, "min", INT8_MIN))
        high = int(float_value(clip.properties, "max", INT8_MAX))
    activation = fused_activation(out_q, max(low, INT8_MIN), min(high, INT8_MAX))
    if activation is not None:
        out = ex.add_tensor(final, out_q)
        return (
            rescale,
            out,
            lambda: None,
            getattr(fb.ActivationFunctionType, activation),
        )
    inner = ex.add_tensor(rescale.output, out_q)
    return rescale, inner, lambda: clamp_ops(ex, inner, low, high, final), 0


def fused_activation(q: TensorQuantization, low: int, high: int) -> str | None:
    """The fused activation whose int8 range TFLite computes as [low, high]
    (CalculateActivationRangeQuantized: zero point + round half away of
    bound / scale in float32); None when none does."""
    scale = np.float32(q.scales[0])

    def level(bound: float) -> int:
        steps = np.float32(bound) / scale
        return q.zero_point + int(np.sign(steps) * np.floor(np.abs(steps) + 0.5))

    zero = max(INT8_MIN, q.zero_point)
    ranges = {
        "NONE": (INT8_MIN, INT8_MAX),
        "RELU": (zero, INT8_MAX),
        "RELU6": (zero, min(INT8_MAX, level(6.0))),
        "RELU_N1_TO_1": (max(INT8_MIN, level(-1.0)), min(INT8_MAX, level(1.0))),
    }
    return next((name for name, r in ranges.items() if r == (low, high)), None)


def clamp_ops(
    ex: TFLiteExporter, tensor: int, low: int, high: int, out: SSAValue
) -> None:
    """MAXIMUM by `low`, MINIMUM by `high` (each when it clamps), into `out`'s tensor."""
    q = tensor_quantization(ex, tensor)
    steps = [("MAXIMUM", low) for _ in [0] if low > INT8_MIN]
    steps += [("MINIMUM", high) for _ in [0] if high < INT8_MAX]
    if not steps:
        ex.tensors[out] = tensor
        return
    shape = ex.graph.tensors[tensor].shape
    for i, (code, bound) in enumerate(steps):
        name = f"{ex.name_of(out)}_{code.lower()}"
        bound_tensor = ex.constant(np.array(bound, np.int8), f"{name}_bound", q)
        last = i == len(steps) - 1
        result = (
            ex.add_tensor(out, q)
            if last
            else ex.graph.add(Tensor(name, shape, np.dtype(np.int8), q))
        )
        ex.emit(code, [tensor, bound_tensor], [result], version=2)
        tensor = result


def check_multipliers(
    ex: TFLiteExporter, rescale: RescaleOp, acc_scales: np.ndarray, out_scale: float
) -> None:
    """Warn when the rescale's multipliers are not those TFLite computes
    (accumulator scale / output scale in double; XNNPACK's, in float32, for
    an FP32_HALF_EVEN rescale), or it rounds otherwise than the recorded
    recipe's runtime."""
    check_rounding(ex, rescale)
    if rescale.rounding == "FP32_HALF_EVEN":
        scales = np.float32(acc_scales).astype(np.float32) / np.float32(out_scale)
        pairs = [fp32_multiplier(s) for s in np.atleast_1d(scales)]
        expected_m = np.array([m for m, _ in pairs])
        expected_s = np.array([s for _, s in pairs])
    else:
        expected_m, expected_s = quantize_multipliers(
            np.asarray(acc_scales, np.float64) / np.float64(out_scale)
        )
    m, s = rescale.multipliers, rescale.shifts
    high = rescale.input.owner
    if isinstance(high, RescaleOp) and not int8(high.output):  # ruy's two steps
        m, s = high.multipliers, high.shifts + s - 30
    if len(m) == 1 and len(expected_m) > 1:
        m, s = np.repeat(m, len(expected_m)), np.repeat(s, len(expected_m))
    if not (np.array_equal(m, expected_m) and np.array_equal(s, expected_s)):
        name = ex.name_of(rescale.output)
        warn(f"tflite export: nn.rescale %{name}: its multipliers are not those TFLite "
             "computes from the tensor scales; TFLite's results may differ by a step")  # fmt: skip


# Layers


def window_padding(
    ex: TFLiteExporter,
    op: Operation,
    x_tensor: int,
    window: tuple[list[int], list[int], list[int]],
    pads,
    auto_pad: str,
    fill: int | None,
) -> tuple[int, int]:
    """(TFLite padding, input tensor) for a 2-D window (kernel, strides,
    dilations): SAME or VALID, or other pads written as PADV2 by `fill` (the
    TF converter's form) when given."""
    fb = schema()
    kernel, strides, dilations = window
    x = ex.graph.tensors[x_tensor]
    spatial = list(x.shape[1:3])
    resolved = resolve_pads(auto_pad, pads, spatial, kernel, strides, dilations)
    if resolved is not None and not any(resolved):
        return fb.Padding.VALID, x_tensor
    same = resolve_pads("SAME_UPPER", None, spatial, kernel, strides, dilations)
    if resolved == same:
        return fb.Padding.SAME, x_tensor
    if resolved is None or fill is None:
        raise ex.fail(op, f"pads {resolved} are neither SAME nor VALID (TFLite's two)")
    paddings = np.array([[0, 0], *zip(resolved[:2], resolved[2:]), [0, 0]], np.int32)
    name = f"{x.name}_padded"
    shape = tuple(int(d + a + b) for d, (a, b) in zip(x.shape, paddings))
    padded = ex.graph.add(Tensor(name, shape, x.dtype, x.quantization))
    inputs = [
        x_tensor,
        ex.constant(paddings, f"{name}_paddings"),
        ex.constant(np.array(fill, x.dtype), f"{name}_value", x.quantization),
    ]
    ex.emit("PADV2", inputs, [padded], version=2)
    return fb.Padding.VALID, padded


def nhwc_shape(ex: TFLiteExporter, op: Operation, value: SSAValue) -> tuple[int, ...]:
    shape = tuple(ranked(value).get_shape())  # type: ignore[union-attr]
    if op.layout != CHANNELS_LAST or len(shape) != 4:  # type: ignore[attr-defined]
        raise ex.fail(op, "TFLite takes 2-D NHWC windows only (convert-layout first)")
    return shape


def write_qconv(ex: TFLiteExporter, op: QConvOp) -> None:
    x, w_value, *bias = op.operands
    shape = nhwc_shape(ex, op, x)
    x_tensor = int8_input(ex, op, x, int_value(op.properties, "input_zp", 0))
    w, w_q = constant_value(w_value), ex.quantization(w_value)
    if w is None or w_q is None or w_q.zero_point != 0:
        raise ex.fail(
            op,
            "TFLite needs constant int8 filters with zero point 0 and recorded scales",
        )
    kh, kw, cin_group, cout = w.shape
    group = int_value(op.properties, "group", 1)
    if group == 1:
        code, options, filt = "CONV_2D", "Conv2DOptions", w.transpose(3, 0, 1, 2)
        axis = 0
    elif group == shape[3] and cin_group == 1:
        code, options, filt = (
            "DEPTHWISE_CONV_2D",
            "DepthwiseConv2DOptions",
            w.transpose(2, 0, 1, 3),
        )
        axis = 3
    else:
        raise ex.fail(op, f"group {group} is neither 1 nor depthwise (no TFLite form)")
    strides, dilations, pads, auto_pad = ConvOp.window_props(op.properties, 2)
    padding, x_tensor = window_padding(
        ex, op, x_tensor, ([kh, kw], strides, dilations), pads, auto_pad,
        tensor_quantization(ex, x_tensor).zero_point,
    )  # fmt: skip
    w_scales = w_q.scales if len(w_q.scales) > 1 else np.repeat(w_q.scales, cout)
    x_scale = np.float64(tensor_quantization(ex, x_tensor).scales[0])
    acc_scales = x_scale * w_scales.astype(np.float64)
    filt_q = TensorQuantization(w_q.scales, 0, axis if len(w_q.scales) > 1 else None)
    f_tensor = ex.constant(filt, ex.name_of(w_value), filt_q)
    b_tensor = -1
    if bias:
        b = constant_value(bias[0])
        if b is None:
            raise ex.fail(op, "TFLite needs a constant bias")
        b_q = TensorQuantization(
            acc_scales.astype(np.float32), 0, 0 if len(w_q.scales) > 1 else None
        )
        if b_q.axis is None:
            b_q = TensorQuantization(acc_scales[:1].astype(np.float32), 0)
        b_tensor = ex.constant(b.astype(np.int32), ex.name_of(bias[0]), b_q)
    rescale, out, clamps, activation = requantized_output(ex, op, op.output)
    check_multipliers(ex, rescale, acc_scales, tensor_quantization(ex, out).scales[0])
    fields = {
        "Padding": padding, "StrideW": strides[1], "StrideH": strides[0],
        "DilationWFactor": dilations[1], "DilationHFactor": dilations[0],
        "FusedActivationFunction": activation,
    }  # fmt: skip
    if code == "DEPTHWISE_CONV_2D":
        fields["DepthMultiplier"] = cout // shape[3]
    ex.emit(code, [x_tensor, f_tensor, b_tensor], [out], (options, fields), version=3)
    clamps()


def write_qmatmul(ex: TFLiteExporter, op: QMatMulOp) -> None:
    lhs_shape = ranked(op.lhs).get_shape()  # type: ignore[union-attr]
    w, w_q = constant_value(op.rhs), ex.quantization(op.rhs)
    if len(lhs_shape) != 2 or w is None or w.ndim != 2:
        raise ex.fail(
            op, "TFLite's FULLY_CONNECTED takes a 2-D input and constant 2-D weights"
        )
    if w_q is None or w_q.zero_point != 0 or int_value(op.properties, "b_zp", 0) != 0:
        raise ex.fail(
            op, "TFLite needs int8 weights with zero point 0 and recorded scales"
        )
    x_tensor = int8_input(ex, op, op.lhs, int_value(op.properties, "a_zp", 0))
    acc, bias = op.output, None
    users = [use.operation for use in acc.uses]
    if len(users) == 1 and isinstance(users[0], AddOp):
        add = users[0]
        other = add.rhs if add.lhs == acc else add.lhs
        bias = constant_value(other)
        if bias is not None:
            ex.done.add(add)
            acc = add.output
    cout = w.shape[1]
    per_channel = len(w_q.scales) > 1
    w_scales = w_q.scales if per_channel else np.repeat(w_q.scales, cout)
    acc_scales = np.float64(
        tensor_quantization(ex, x_tensor).scales[0]
    ) * w_scales.astype(np.float64)
    f_q = TensorQuantization(w_q.scales, 0, 0 if per_channel else None)
    f_tensor = ex.constant(np.ascontiguousarray(w.T), ex.name_of(op.rhs), f_q)
    b_tensor = -1
    if bias is not None:
        b_scales = acc_scales if per_channel else acc_scales[:1]
        b_q = TensorQuantization(
            b_scales.astype(np.float32), 0, 0 if per_channel else None
        )
        b_tensor = ex.constant(
            np.broadcast_to(bias, (cout,)).astype(np.int32),
            f"{ex.name_of(op.rhs)}_bias",
            b_q,
        )
    rescale, out, clamps, activation = requantized_output(ex, op, acc)
    check_multipliers(ex, rescale, acc_scales, tensor_quantization(ex, out).scales[0])
    fields = {"FusedActivationFunction": activation}
    ex.emit("FULLY_CONNECTED", [x_tensor, f_tensor, b_tensor], [out],
            ("FullyConnectedOptions", fields), version=4)  # fmt: skip
    clamps()


def _widened(ex: TFLiteExporter, op: Operation, value: SSAValue) -> int:
    """The int8 tensor an nn.rescale to i32 (no scaling but the zero point) reads."""
    return _to_i32(ex, op, value)[0]


def _to_i32(
    ex: TFLiteExporter, op: Operation, value: SSAValue
) -> tuple[int, list[RescaleOp]]:
    """The int8 tensor behind an i32 operand and the rescales taking it there."""
    chain: list[RescaleOp] = []
    while isinstance(value.owner, RescaleOp) and not int8(value):
        chain.insert(0, value.owner)
        value = value.owner.input
    if not chain or not int8(value):
        raise ex.fail(
            op, "an i32 operand that is not a widened int8 value (no TFLite form)"
        )
    ex.done.update(chain)
    zero_point = int_value(chain[0].properties, "input_zp", 0)
    return int8_input(ex, op, value, zero_point), chain


def write_add(ex: TFLiteExporter, op: AddOp) -> None:
    if ranked(op.output).element_type != ranked(op.lhs).element_type or int8(op.output):  # type: ignore[union-attr]
        raise ex.fail(
            op, "has no TFLite form here (export an int8 graph: convert-to-int)"
        )
    (lhs, lhs_chain), (rhs, rhs_chain) = (
        _to_i32(ex, op, op.lhs),
        _to_i32(ex, op, op.rhs),
    )
    rescale, out, clamps, activation = requantized_output(ex, op, op.output)
    scales = [tensor_quantization(ex, t).scales[0] for t in (lhs, rhs, out)]
    check_add(ex, op, [*lhs_chain, *rhs_chain, rescale], scales)
    ex.emit(
        "ADD",
        [lhs, rhs],
        [out],
        ("AddOptions", {"FusedActivationFunction": activation}),
        version=2,
    )
    clamps()


def write_reduce_sum(ex: TFLiteExporter, op: ReduceSumOp) -> None:
    widen = op.operands[0].owner
    if not isinstance(widen, RescaleOp) or not int8(widen.input):
        raise ex.fail(op, "an i32 operand that is not a widened int8 value (no TFLite form)")  # fmt: skip
    if not _unit_rescale(widen):
        raise ex.fail(op, "sums values scaled on the way to i32 (no TFLite MEAN)")
    ex.done.add(widen)
    x_tensor = ex.tensor(widen.input)
    rank = len(ex.graph.tensors[x_tensor].shape)
    axes = np.array(reduced_axes(op.properties, rank), np.int32)
    axes_tensor = ex.constant(axes, f"{ex.name_of(op.output)}_axes")
    keep = bool(int_value(op.properties, "keepdims", 1))
    acc, steps, offset = mean_tail(ex, op)
    if offset is None:
        int8_input(ex, op, widen.input, int_value(widen.properties, "input_zp", 0))
    rescale, out, clamps, activation = requantized_output(ex, op, acc)
    if activation != 0:
        raise ex.fail(op, "TFLite's MEAN has no fused activation")
    mean = ir_mean(widen, steps or [rescale], rescale, offset or 0)
    check_mean(ex, op, mean, x_tensor, out, axes, keep)
    ex.emit(
        "MEAN",
        [x_tensor, axes_tensor],
        [out],
        ("ReducerOptions", {"KeepDims": keep}),
        version=2,
    )
    clamps()


def mean_tail(
    ex: TFLiteExporter, op: ReduceSumOp
) -> tuple[SSAValue, list[RescaleOp], int | None]:
    """The i32 value the MEAN's final rescale to int8 reads: the sum, or
    (TFLite's 4-D spatial MEAN) the sum rescaled to i32 (one rescale, or
    ruy's two) plus a constant offset; with those rescales and the offset."""
    value, steps = op.output, []
    while True:
        users = [use.operation for use in value.uses]
        step = users[0] if len(users) == 1 else None
        if not isinstance(step, RescaleOp) or int8(step.output):
            break
        steps.append(step)
        value = step.output
    if not steps:
        return op.output, [], None
    users = [use.operation for use in value.uses]
    add = users[0] if len(users) == 1 else None
    other = None
    if isinstance(add, AddOp):
        other = add.rhs if add.lhs == value else add.lhs
    offset = None if other is None else constant_value(other)
    if add is None or offset is None or offset.size != 1:
        raise ex.fail(op, "its i32 rescaled sum is not offset by a constant (no TFLite MEAN)")  # fmt: skip
    ex.done.update((*steps, add))
    return add.results[0], steps, int(offset.ravel()[0])


def _unit_rescale(op: RescaleOp) -> bool:
    return op.multipliers.tolist() == [1 << 30] and op.shifts.tolist() == [30]
