"""Patterns of convert-to-int: fake-quantized float ops to int8 ops with i32 accumulators.

An int8 value is carried as `nn.dequantize(q)`: each activation fake quant is
replaced by the dequantization of an int8 value computed from the int8 values
before it (through a conv, matmul, add, concat or rescale), or else by
quantizing its float input. Dequantizations without float users die.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType, f32, i8
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from graph_opt.dialects.nn.base import f32_attr, float_value, i64_attr
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.conv import ConvOp, ConvTransposeOp
from graph_opt.dialects.nn.elementwise import AddOp, ClipOp, IdentityOp, ReluOp
from graph_opt.dialects.nn.fused import FusedActivation, FusedConvOp, FusedMatMulOp
from graph_opt.dialects.nn.layout import CHANNELS_FIRST
from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp
from graph_opt.dialects.nn.norm import SoftmaxOp
from graph_opt.dialects.nn.pool import AvgPoolOp, MaxPoolOp
from graph_opt.dialects.nn.qint import (
    DequantizeOp,
    QConvOp,
    QConvTransposeOp,
    QMatMulOp,
    quantization_props,
)
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.shape_ops import FlattenOp, ReshapeOp, SqueezeOp, UnsqueezeOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.dialects.nn.tensor_ops import ConcatOp, PadOp, TransposeOp
from graph_opt.passes.common.fusion_patterns import (
    activation_op,
    is_float_activation,
)
from graph_opt.passes.convert_to_int.accumulator import Accumulation, accumulation
from graph_opt.passes.convert_to_int.add import lower_add
from graph_opt.passes.convert_to_int.params import (
    INT8_MAX,
    INT8_MIN,
    INT8_OFFSET,
    ActivationParams,
    IntValue,
    activation_params,
    clamp,
    dequantize,
    int8_to_unsigned,
    int32_bias,
    int_value_of,
    int_weights,
    levels,
    quantize,
    record_weights,
    rescale,
    rescale_channels,
    ruy_rescale_channels,
    unsigned_to_int8,
)
from graph_opt.passes.convert_to_int.pool import MEAN_OPS, lower_avg_pool, lower_mean
from graph_opt.quantization.fake_quant_math import fake_quant
from graph_opt.quantization.runtime_recipes import runs_on_ruy

Lowered = tuple[list[Operation], SSAValue]
"""New ops and the int8 value they compute."""
Tail = Callable[[Operation, np.ndarray, int], "list[Operation] | None"]
"""The ops finishing an i32 accumulator, given its op, the real scale of each
channel and the channel axis; None when they cannot be built."""

CONV_PROPS = ("strides", "pads", "dilations", "group", "auto_pad", "data_layout")
TRANSPOSED_CONV_PROPS = (*CONV_PROPS, "output_padding", "output_shape")


def activation_range(op: Operation) -> tuple[float, float] | None:
    """The clamp range of relu, relu6, clip (plain or fused); None for other ops."""
    inf = float("inf")
    if isinstance(op, ReluOp):
        return 0.0, inf
    if isinstance(op, ClipOp):
        return (
            float_value(op.properties, "min", -inf),
            float_value(op.properties, "max", inf),
        )
    return None


def fused_range(op: FusedActivation) -> tuple[float, float] | None:
    """The clamp range of a fused activation; None for sigmoid, tanh, leaky_relu."""
    inf = float("inf")
    name, params = op.activation_name, op.activation_values
    return {
        "none": (-inf, inf),
        "relu": (0.0, inf),
        "relu6": (0.0, 6.0),
        "clip": tuple(params) if len(params) == 2 else None,
    }.get(name)


def weight_constant(value: SSAValue) -> tuple[FakeQuantOp, np.ndarray] | None:
    """The fake quantization of constant weights that defines `value`."""
    fq = value.owner
    if not isinstance(fq, FakeQuantOp):
        return None
    weights = constant_value(fq.input)
    return None if weights is None else (fq, np.asarray(weights, np.float32))


def requantized(params: ActivationParams, recipe: str = "tosa") -> Tail:
    """The accumulator rescaled to int8 with `params`; in float32 as XNNPACK
    does (input x weight scale / output scale, each step in float32) with
    recipe xnnpack; as ruy does (the builtin kernels' conv and fully
    connected) with tflite-builtin."""

    def build(acc: Operation, acc_scales: np.ndarray, channel_axis: int):
        layer = acc.lhs.owner if isinstance(acc, AddOp) else acc  # past a bias
        if recipe == "tflite-builtin" and runs_on_ruy(layer):
            return ruy_rescale_channels(
                acc.results[0],
                acc_scales / params.scale,
                params.zero_point,
                channel_axis,
            )
        if recipe == "xnnpack":
            scales = np.float32(acc_scales).astype(np.float32) / np.float32(
                params.scale
            )
            return rescale_channels(
                acc.results[0], scales, params.zero_point, channel_axis, fp32=True
            )
        return rescale_channels(
            acc.results[0], acc_scales / params.scale, params.zero_point, channel_axis
        )

    return build


def float_result(op: Operation) -> Tail:
    """The accumulator dequantized (exactly, per channel), then `op`'s fused
    activation, if any, in float."""

    def build(acc: Operation, acc_scales: np.ndarray, channel_axis: int):
        per_channel = len(acc_scales) > 1
        props = quantization_props(
            acc_scales, np.zeros(len(acc_scales), np.int64),
            channel_axis if per_channel else None,
        )  # fmt: skip
        ops: list[Operation] = [DequantizeOp.create_inferred([acc.results[0]], props)]
        if isinstance(op, FusedActivation) and op.activation_name != "none":
            name, params = op.activation_name, op.activation_values
            ops.append(activation_op(name, params, ops[0].results[0]))
        return ops

    return build


def lower_conv(
    op: ConvOp | FusedConvOp | ConvTransposeOp, layer: Accumulation, tail: Tail
) -> Lowered | None:
    """A conv or transposed conv as nn.qconv / nn.qconv_transpose."""
    x = int_value_of(op.input)
    weights = weight_constant(op.filter)
    if x is None or weights is None:
        return None  # not int8 input x fake-quantized constant filter
    layout = op.layout
    rank = len(weights[1].shape)
    out_axis = 1 if layout == CHANNELS_FIRST else rank - 1
    w = int_weights(*weights, layer.weight_axis)
    bias = None if op.bias is None else constant_value(op.bias)
    if w is None or (op.bias is not None and bias is None):
        return None  # per-channel zero points differ, or the bias is not constant
    transposed = isinstance(op, ConvTransposeOp)
    acc_scales = layer.scales(x.scale, w.scales)
    filter_op = ConstantOp.from_array(w.values)
    record_weights(filter_op, w, layer.weight_axis)
    ops: list[Operation] = [filter_op]
    operands = [x.value, filter_op.output]
    if bias is not None:
        ops.append(ConstantOp.from_array(int32_bias(bias, acc_scales)))
        operands.append(ops[-1].results[0])
    names = TRANSPOSED_CONV_PROPS if transposed else CONV_PROPS
    props = {k: op.properties[k] for k in names if k in op.properties}
    props["input_zp"] = i64_attr(x.zero_point)
    props["weight_zp"] = i64_attr(w.zero_point)
    integer_type = QConvTransposeOp if transposed else QConvOp
    qconv = integer_type.create_inferred(operands, props)
    finished = tail(qconv, acc_scales, out_axis)
    if finished is None:
        return None  # a requantization scale has no multiplier and shift
    return [*ops, qconv, *finished], finished[-1].results[0]


def lower_matmul(
    x_value: SSAValue,
    w_value: SSAValue,
    bias: np.ndarray | None,
    layer: Accumulation,
    tail: Tail,
) -> Lowered | None:
    """x @ op(w) * alpha + bias, for fake-quantized constant 2-D weights."""
    x = int_value_of(x_value)
    weights = weight_constant(w_value)
    if x is None or weights is None or weights[1].ndim != 2:
        return None  # not int8 x fake-quantized 2-D constant weights
    w = int_weights(*weights, layer.weight_axis)
    if w is None:
        return None  # per-channel zero points differ
    values = w.values.T if layer.trans_b else w.values
    acc_scales = layer.scales(x.scale, w.scales)
    w_op = ConstantOp.from_array(np.ascontiguousarray(values))
    record_weights(w_op, w, 1)
    props = {"a_zp": i64_attr(x.zero_point), "b_zp": i64_attr(w.zero_point)}
    acc: Operation = QMatMulOp.create_inferred([x.value, w_op.output], props)
    ops: list[Operation] = [w_op, acc]
    if bias is not None:
        bias_op = ConstantOp.from_array(int32_bias(bias, acc_scales))
        acc = AddOp.create_inferred([acc.results[0], bias_op.output])
        ops += [bias_op, acc]
    rank = len(ranked(acc.results[0]).get_shape())  # type: ignore[union-attr]
    finished = tail(acc, acc_scales, rank - 1)
    if finished is None:
        return None  # a requantization scale has no multiplier and shift
    return [*ops, *finished], finished[-1].results[0]


def lower_linear(op: Operation, tail: Tail) -> Lowered | None:
    """A conv (plain or transposed), matmul or gemm on int8 x and
    fake-quantized constant weights, its accumulator finished by `tail`."""
    layer = accumulation(op)
    if layer is None:
        return None  # not a layer, or a gemm with no int8 form
    if isinstance(op, ConvOp | FusedConvOp | ConvTransposeOp):
        return lower_conv(op, layer, tail)
    if isinstance(op, MatMulOp | FusedMatMulOp):
        bias = None
        if isinstance(op, FusedMatMulOp) and op.bias is not None:
            bias = constant_value(op.bias)
            if bias is None:
                return None  # a non-constant bias stays float
        return lower_matmul(op.lhs, op.rhs, bias, layer, tail)
    if isinstance(op, GemmOp):
        bias = None
        if op.c is not None:
            c = constant_value(op.c)
            if c is None:
                return None  # a non-constant c stays float
            bias = float_value(op.properties, "beta", 1.0) * c.astype(np.float64)
        return lower_matmul(op.a, op.b, bias, layer, tail)
    return None


def to_params(x: IntValue, params: ActivationParams) -> Lowered | None:
    """`x` as int8 with `params`' scale and zero point (a rescale unless equal)."""
    if x.scale == params.scale and x.zero_point == params.zero_point:
        return [], x.value
    op = rescale(
        x.value, np.array([x.scale / params.scale]), x.zero_point, params.zero_point
    )
    return None if op is None else ([op], op.output)


def lower_concat(op: ConcatOp, params: ActivationParams) -> Lowered | None:
    inputs = [x for v in op.inputs if (x := int_value_of(v)) is not None]
    if len(inputs) != len(op.inputs):
        return None  # an input is not int8
    ops: list[Operation] = []
    values = []
    for x in inputs:
        moved = to_params(x, params)
        if moved is None:
            return None
        ops += moved[0]
        values.append(moved[1])
    concat = ConcatOp.create_inferred(values, dict(op.properties))
    return [*ops, concat], concat.output


def lower_producer(
    value: SSAValue, params: ActivationParams, recipe: str = "tosa"
) -> tuple[Lowered, tuple[float, float]] | None:
    """The int8 computation of a fake quant's input and the activation range to
    clamp to; adds requantize as `recipe` says."""
    inf = float("inf")
    act = (-inf, inf)
    core = value.owner
    bounds = activation_range(core) if isinstance(core, Operation) else None
    if bounds is not None and value.has_one_use():
        act, value = bounds, core.operands[0]
        core = value.owner
    x = int_value_of(value)
    if x is not None:
        lowered = to_params(x, params)
        return None if lowered is None else (lowered, act)
    if not isinstance(core, Operation) or not value.has_one_use():
        return None  # an argument, or a value that other ops also read
    if isinstance(core, FusedActivation):
        fused = fused_range(core)
        if fused is None:
            return None  # sigmoid, tanh and leaky_relu stay float
        act = (max(act[0], fused[0]), min(act[1], fused[1]))
    if isinstance(core, AddOp):
        lowered = lower_add(core, params, recipe)
    elif isinstance(core, ConcatOp):
        lowered = lower_concat(core, params)
    elif isinstance(core, MEAN_OPS):
        lowered = lower_mean(core, params, recipe)
    elif isinstance(core, AvgPoolOp):
        lowered = lower_avg_pool(core, params)
    else:
        lowered = lower_linear(core, requantized(params, recipe))
    return None if lowered is None else (lowered, act)


@dataclass
class ConvertFakeQuant(RewritePattern):
    """A per-tensor activation fake quant (<= 8 bits) becomes the dequantization
    of an int8 value: computed from int8 inputs when the producer allows, else
    quantized from the float input (graph inputs via uint8 with
    `unsigned_inputs`); clamped to the levels and the folded activation.
    Adds requantize as `recipe` (runtime_recipes.RECIPES) says."""

    unsigned_inputs: bool = False
    recipe: str = "tosa"

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FakeQuantOp, rewriter: PatternRewriter) -> None:
        if constant_value(op.input) is not None:
            return  # weights: read where they are used
        value_type = ranked(op.output)
        if value_type is None or value_type.element_type != f32:
            return  # nn.dequantize gives ranked f32 only
        params = activation_params(op)
        if params is None:
            return  # per channel or wider than 8 bits: stays float
        lowered = lower_producer(op.input, params, self.recipe)
        if lowered is None:
            unsigned = self.unsigned_inputs and isinstance(op.input, BlockArgument)
            ops = [quantize(op.input, params, unsigned)]
            if unsigned:
                ops.append(unsigned_to_int8(ops[0].output, params.zero_point))
            q, act = ops[-1].results[0], (params.low, params.high)
        else:
            (ops, q), bounds = lowered
            act = tuple(levels(op, params, bounds).tolist())
        low, high = max(params.low, act[0]), min(params.high, act[1])
        if (low, high) != (INT8_MIN, INT8_MAX):
            ops = [*ops, clamp(q, low, high)]
            q = ops[-1].results[0]
        if not ops:
            rewriter.replace_all_uses_with(op.output, op.input)
            rewriter.erase(op)
            return
        deq = dequantize(q, params.scale, params.zero_point)
        rewriter.replace(op, [*ops, deq], [deq.output])


class IntegerConvFloatActivation(RewritePattern):
    """A conv or matmul on an int8 input whose activation has no int8 form
    (sigmoid, tanh, silu, hard_swish, gelu, ...; fused or the sole user of its
    result), or whose result only a softmax reads (a classifier's logits):
    the conv or matmul in int8, its accumulator dequantized, the
    activation in float, as TFLite runs a float kernel after an int8 conv where
    it has no integer one."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: ConvOp | FusedConvOp | ConvTransposeOp | MatMulOp | FusedMatMulOp | GemmOp,
        rewriter: PatternRewriter,
    ) -> None:
        if not _feeds_float_activation(op):
            return
        lowered = lower_linear(op, float_result(op))
        if lowered is not None:
            rewriter.replace(op, lowered[0], [lowered[1]])


def _feeds_float_activation(op: Operation) -> bool:
    if isinstance(op, FusedActivation) and op.activation_name != "none":
        return fused_range(op) is None
    user = op.results[0].get_user_of_unique_use()
    return user is not None and (
        is_float_activation(user) or isinstance(user, SoftmaxOp)
    )


SCALE_PRESERVING = (
    MaxPoolOp, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, TransposeOp, IdentityOp,
)  # fmt: skip


class MoveThroughScalePreserving(RewritePattern):
    """max_pool, reshape, flatten, squeeze, unsqueeze, transpose, identity, relu,
    zero padding and equal-scale concat of int8 values run on the int8 values."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        data = list(op.operands) if isinstance(op, ConcatOp) else op.operands[:1]
        if not data or not isinstance(op, (*SCALE_PRESERVING, PadOp, ReluOp, ConcatOp)):
            return
        inputs = [x for v in data if (x := int_value_of(v)) is not None]
        if len(inputs) != len(data):
            return  # an input is not int8
        first = inputs[0]
        if any(
            (x.scale, x.zero_point) != (first.scale, first.zero_point) for x in inputs
        ):
            return  # concat of different scales: rescaled at its fake quant
        result = ranked(op.results[0])
        if result is None:
            return  # unranked result
        if isinstance(op, ReluOp):
            new_op: Operation = clamp(first.value, first.zero_point, INT8_MAX)
        elif isinstance(op, PadOp):
            if op.pad_mode == "constant" and op.fill != 0.0:
                return  # a non-zero fill is not an int8 level in general
            props = dict(op.properties)
            props["value"] = f32_attr(float(first.zero_point))
            new_op = PadOp.create_inferred([first.value], props)
        else:
            operands = [x.value for x in inputs] + list(op.operands[len(data) :])
            new_op = type(op).create_inferred(
                operands, dict(op.properties), [TensorType(i8, result.get_shape())]
            )
        deq = dequantize(new_op.results[0], first.scale, first.zero_point)
        rewriter.replace(op, [new_op, deq], [deq.output])


class FoldWeightFakeQuant(RewritePattern):
    """A fake quant of constants that stays float becomes the constant it computes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FakeQuantOp, rewriter: PatternRewriter) -> None:
        weights = constant_value(op.input)
        if weights is None:
            return  # not constant
        out = fake_quant(
            weights, op.mins, op.maxs, op.bits, op.is_narrow, op.axis_value
        )
        rewriter.replace(op, ConstantOp.from_array(out.astype(weights.dtype)))


class UnsignedOutputs(RewritePattern):
    """Dequantized int8 results of a function are returned through uint8."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        for index, value in enumerate(op.operands):
            x = int_value_of(value)
            if x is None:
                continue  # not a dequantized int8 value
            unsigned = int8_to_unsigned(x.value, x.zero_point)
            deq = dequantize(unsigned.output, x.scale, x.zero_point + INT8_OFFSET)
            rewriter.insert([unsigned, deq], InsertPoint.before(op))
            op.operands[index] = deq.output
            rewriter.notify_op_modified(op)


def convert_to_int_patterns(
    unsigned_io: bool = False, recipe: str = "tosa"
) -> list[RewritePattern]:
    """The conversion patterns; with `unsigned_io`, inputs and outputs are
    uint8; adds requantize as `recipe` says."""
    patterns: list[RewritePattern] = [
        ConvertFakeQuant(unsigned_io, recipe),
        MoveThroughScalePreserving(),
        IntegerConvFloatActivation(),
    ]
    return [*patterns, UnsignedOutputs()] if unsigned_io else patterns


__all__ = [
    "ConvertFakeQuant",
    "FoldWeightFakeQuant",
    "IntegerConvFloatActivation",
    "MoveThroughScalePreserving",
    "UnsignedOutputs",
    "convert_to_int_patterns",
]
