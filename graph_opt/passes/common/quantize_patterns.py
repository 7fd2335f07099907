"""The layer patterns of the quantize pass (TensorFlow's contrib.quantize rules)
and the ranges of the fake quantizations it inserts.

A layer is a conv, transposed conv, matmul or gemm (plain or fused) whose
weight is a constant.
From it the match follows single-use edges through, in order, a bias add (an
add of a constant), a bypass add (a residual: an add of another tensor), an
activation (relu, clip, identity) and a post-activation bypass add, so that
the largest pattern wins and nothing lands between a layer and the ops that
will be fused into it. An activation with no int8 form (sigmoid, hard_swish,
...) read straight from the layer counts as fused, as it is when fuse-ops
fused it: convert-to-int dequantizes the accumulator for it, so the tensor
between them needs no quantization.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Operation, SSAValue

from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.conv import ConvOp, ConvTransposeOp
from graph_opt.dialects.nn.elementwise import AddOp, ClipOp, IdentityOp, ReluOp
from graph_opt.dialects.nn.fused import FusedConvOp, FusedMatMulOp
from graph_opt.dialects.nn.layout import CHANNELS_FIRST
from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.passes.common.fusion_patterns import is_float_activation
from graph_opt.patterns.matcher import Match

ACTIVATIONS = (ReluOp, ClipOp, IdentityOp)


@dataclass
class LayerMatch:
    """What to fake-quantize around one layer."""

    layer: Operation
    weight_index: int | None
    """The weight operand to quantize; None when it already is."""
    weight_axis: int
    """The weight's output-channel axis (for per-channel ranges)."""
    activations: list[SSAValue] = field(default_factory=list)
    """Tensors to quantize with calibrated ranges, in graph order."""
    output: SSAValue | None = None
    """The layer's (activated) output: create_training_graph's `act_quant`."""


def weight_operand(op: Operation) -> tuple[int, int] | None:
    """(operand index, output-channel axis) of a layer's weight; None if not a layer."""
    if isinstance(op, ConvOp | FusedConvOp):
        rank = len(op.filter.type.get_shape())  # type: ignore[attr-defined]
        return 1, 0 if op.layout == CHANNELS_FIRST else rank - 1
    if isinstance(op, ConvTransposeOp):
        # IOHW / HWOI: the output channels of a group are the second axis / the
        # second to last (a group's channel j is output channel g * C_out/group + j)
        rank = len(op.filter.type.get_shape())  # type: ignore[attr-defined]
        return 1, 1 if op.layout == CHANNELS_FIRST else rank - 2
    if isinstance(op, MatMulOp | FusedMatMulOp):
        return 1, -1
    if isinstance(op, GemmOp):
        return 1, 0 if op.trans_b is not None and op.trans_b.value.data else 1
    return None


def is_quantized(value: SSAValue) -> bool:
    """Whether a fake quantization produces or consumes the value already."""
    return isinstance(value.owner, FakeQuantOp) or any(
        isinstance(use.operation, FakeQuantOp) for use in value.uses
    )


def _sole_user(value: SSAValue) -> Operation | None:
    return value.get_user_of_unique_use()


def _other_operand(add: AddOp, value: SSAValue) -> SSAValue:
    return add.rhs if add.lhs is value else add.lhs


def is_constant(value: SSAValue) -> bool:
    return constant_value(value) is not None


def _is_add_of(
    user: Operation | None, value: SSAValue, constant: bool, is_parameter
) -> bool:
    """Whether `user` adds a parameter (a bias) or another tensor (a bypass) to value."""
    if not isinstance(user, AddOp) or user.lhs is user.rhs:
        return False
    return is_parameter(_other_operand(user, value)) == constant


def _is_activated(op: Operation) -> bool:
    """A fused op with its activation inside: its result is past the activation."""
    return isinstance(op, FusedConvOp | FusedMatMulOp) and op.activation_name != "none"


def layer_of(
    op: Operation, is_parameter: Callable[[SSAValue], bool] = is_constant
) -> LayerMatch | None:
    """`op` as a layer (a conv, matmul or gemm whose weight `is_parameter`
    accepts: constants by default), with no activation yet; None if it is not one."""
    spec = weight_operand(op)
    if spec is None:
        return None
    index, axis = spec
    weight = op.operands[index]
    weight_is_quantized = isinstance(weight.owner, FakeQuantOp)
    if not weight_is_quantized and not is_parameter(weight):
        return None  # weights come from the graph: not a layer with parameters
    if axis < 0:
        axis += len(weight.type.get_shape())  # type: ignore[attr-defined]
    return LayerMatch(op, None if weight_is_quantized else index, axis)


def match_layer(
    op: Operation, is_parameter: Callable[[SSAValue], bool] = is_constant
) -> LayerMatch | None:
    """The largest quantization pattern rooted at a layer, or None; weights and
    biases are the operands `is_parameter` accepts (constants by default)."""
    match = layer_of(op, is_parameter)
    if match is None:
        return None
    out = op.results[0]
    if _is_activated(op):
        return _ending_at(match, out, is_parameter)
    user = _sole_user(out)
    if user is not None and is_float_activation(user):
        # as if fused: convert-to-int dequantizes the accumulator for it
        return _ending_at(match, user.results[0], is_parameter)
    if _is_add_of(user, out, constant=True, is_parameter=is_parameter):
        out = user.output  # bias add
    return match_after_bias(match, out, is_parameter)


def match_after_bias(
    match: LayerMatch, out: SSAValue, is_parameter: Callable[[SSAValue], bool]
) -> LayerMatch:
    """The pattern continued from the layer's biased output `out`: a bypass
    add, an activation, a post-activation bypass add."""
    user = _sole_user(out)
    if _is_add_of(user, out, constant=False, is_parameter=is_parameter):
        # a bypass before the activation: both inputs, then its (activated) output
        match.activations += [out, _other_operand(user, out)]
        out = user.output
        user = _sole_user(out)
    if isinstance(user, ACTIVATIONS):
        out = user.output
    return _ending_at(match, out, is_parameter)


def _ending_at(match: LayerMatch, out: SSAValue, is_parameter) -> LayerMatch:
    match.activations.append(out)
    match.output = out
    user = _sole_user(out)
    if _is_add_of(user, out, constant=False, is_parameter=is_parameter):
        match.activations.append(user.output)  # post-activation bypass
    return match


def layers_of_pattern_match(
    match: Match, positions: dict[Operation, int]
) -> list[LayerMatch]:
    """The layers inside a user pattern's match (`quantize{patterns=...}`), in
    program order (`positions`); the last gets the match's root as its activation."""
    layers = [m for op in match.region if (m := layer_of(op)) is not None]
    if layers:
        layers.sort(key=lambda m: positions[m.layer])
        layers[-1].activations.append(match.root)
    return layers


def weight_range(
    weight: np.ndarray, axis: int | None, symmetric: bool, num_bits: int
) -> tuple[np.ndarray, np.ndarray]:
    """TF's LastValueQuantize with narrow range: the weight's min and max (per
    output channel when `axis` is given), widened to contain 0, or to
    [-m, m] with m the largest magnitude when `symmetric`. An all-zero channel
    gets a scale of 1, as TFLite's quantizer gives it (no range has scale 0)."""
    reduce = None if axis is None else tuple(a for a in range(weight.ndim) if a != axis)
    low = np.atleast_1d(weight.min(axis=reduce)).astype(np.float32)
    high = np.atleast_1d(weight.max(axis=reduce)).astype(np.float32)
    if symmetric:
        low, high = np.minimum(low, -high), np.maximum(high, -low)
    else:
        low, high = np.minimum(low, 0), np.maximum(high, 0)
    half = float((1 << (num_bits - 1)) - 1)
    empty = low == high
    return (
        np.where(empty, -half, low).astype(np.float32),
        np.where(empty, half, high).astype(np.float32),
    )


def activation_range(
    low: float, high: float, num_bits: int, symmetric: bool
) -> tuple[float, float]:
    """TF's MovingAvgQuantize range from an observed one: widened to contain 0,
    or made symmetric for a full (not narrow) range of 2^num_bits levels. A
    tensor only ever seen as 0 gets a scale of 1, as TFLite's quantizer gives it."""
    if low == high == 0.0:
        high = float((1 << num_bits) - 1)
    if symmetric:
        ratio = -((1 << num_bits) - 2) / (1 << num_bits)
        return min(low, high / ratio), max(high, low * ratio)
    return min(low, 0.0), max(high, 0.0)
