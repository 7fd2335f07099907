"""Lowering of inference batch_norm and layer_norm to TOSA arithmetic (rsqrt, mul, add, reduce_sum)."""

from __future__ import annotations

import math

from xdsl.dialects import tosa
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.base import float_value
from graph_opt.dialects.nn.layout import CHANNELS_FIRST, channel_axis
from graph_opt.dialects.nn.norm import BatchNormOp, LayerNormOp
from graph_opt.dialects.nn.shapes import normalize_axis
from graph_opt.lowering.lowering_pattern import LoweringPattern
from graph_opt.lowering.tosa_builder import TosaBuilder, shape_of
from graph_opt.lowering.tosa_elementwise import is_float
from graph_opt.lowering.tosa_tensor import reduce


def inverse_std(b: TosaBuilder, variance: SSAValue, epsilon: float) -> SSAValue:
    """1 / sqrt(variance + epsilon)."""
    shifted = b.binary(tosa.AddOp, variance, b.const_like(variance, epsilon))
    return b.unary(tosa_ext.RsqrtOp, shifted)


class LowerBatchNorm(LoweringPattern):
    """nn.batch_norm -> (x - mean) * scale * rsqrt(var + eps) + bias, per channel."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, BatchNormOp):
            return
        x = op.operands[0]
        if not is_float(x):
            self.decline(op, "integer batch_norm does not lower to TOSA")
            return
        rank = len(shape_of(x))
        layout = op.properties.get("data_layout")
        axis = channel_axis(layout.data if layout else CHANNELS_FIRST, rank)  # type: ignore[attr-defined]
        b = TosaBuilder()
        scale, bias, mean, variance = (
            self.per_channel(b, v, rank, axis) for v in op.operands[1:5]
        )
        epsilon = float_value(op.properties, "epsilon", 1e-5)
        factor = b.binary(tosa.MulOp, scale, inverse_std(b, variance, epsilon))
        centered = b.binary(tosa.SubOp, x, mean)
        y = b.binary(tosa.AddOp, b.binary(tosa.MulOp, centered, factor), bias)
        rewriter.replace(op, b.ops, [y])

    @staticmethod
    def per_channel(b: TosaBuilder, value: SSAValue, rank: int, axis: int) -> SSAValue:
        shape = [1] * rank
        shape[axis] = shape_of(value)[0]
        return b.reshape(value, shape)


class LowerLayerNorm(LoweringPattern):
    """nn.layer_norm -> mean and variance by tosa.reduce_sum over the normalized dims."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, LayerNormOp):
            return
        x = op.operands[0]
        if not is_float(x):
            self.decline(op, "integer layer_norm does not lower to TOSA")
            return
        shape = shape_of(x)
        first = normalize_axis(op.axis_value, len(shape))
        axes = tuple(range(first, len(shape)))
        count = 1 / math.prod(shape[first:])
        b = TosaBuilder()
        mean = b.scale(reduce(b, tosa.ReduceSumOp, x, axes), count)
        centered = b.binary(tosa.SubOp, x, mean)
        squares = b.binary(tosa.MulOp, centered, centered)
        variance = b.scale(reduce(b, tosa.ReduceSumOp, squares, axes), count)
        normalized = b.binary(
            tosa.MulOp, centered, inverse_std(b, variance, op.epsilon_value)
        )
        y = b.binary(tosa.MulOp, normalized, op.operands[1])
        if len(op.operands) == 3:
            y = b.binary(tosa.AddOp, y, op.operands[2])
        rewriter.replace(op, b.ops, [y])
