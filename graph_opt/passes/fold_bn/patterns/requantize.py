"""Folding a batch norm into fake-quantized weights (a quantization-aware-trained
conv, as tensorflow-model-optimization writes it).

fake_quant(W * s, min * s, max * s) = s * fake_quant(W, min, max) for s > 0
per output channel: the nudged zero point and the integer levels stay the
same, only the step scales. For s < 0 the range swaps ends (max * s, min * s)
and the levels mirror, as TFLite folds them. A per-tensor fake quantization
becomes per channel along the filter's output axis. Each fold is checked on
the weights: where float rounding (a weight on a rounding tie, TF's division
per tensor against multiplication per channel) would move a weight to another
level, the fold is declined with the reason.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from graph_opt.dialects.nn.quant import FakeQuantOp, fake_quant_props
from graph_opt.passes.fold_bn.patterns.weights import folded_constant
from graph_opt.quantization.fake_quant_math import fake_quant


def requantized_ranges(
    quantizer: FakeQuantOp,
    axis: int | None,
    filter_axis: int,
    scale: np.ndarray,
    weights: np.ndarray,
) -> tuple[np.ndarray, np.ndarray] | str:
    """Per-channel ranges under which fake_quant(weights * scale) equals
    scale * fake_quant(weights), or why there are none; `axis` is the
    quantizer's channel axis on the filter (None per tensor)."""
    rank = weights.ndim
    if axis is not None and axis % rank != filter_axis:
        return "the filter's fake quantization is not per output channel"
    channels = weights.shape[filter_axis]
    low = np.broadcast_to(quantizer.mins.astype(np.float64), (channels,)) * scale
    high = np.broadcast_to(quantizer.maxs.astype(np.float64), (channels,)) * scale
    low, high = np.where(scale < 0, high, low), np.where(scale < 0, low, high)
    shape = [1] * rank
    shape[filter_axis] = -1
    factor = scale.reshape(shape)
    bits, narrow = quantizer.bits, quantizer.is_narrow
    expected = (
        fake_quant(weights, quantizer.mins, quantizer.maxs, bits, narrow, axis) * factor
    )
    scaled = (weights * factor).astype(np.float32)
    folded = fake_quant(scaled, low, high, bits, narrow, filter_axis)
    tolerance = 1e-6 * float(np.abs(expected).max(initial=0.0))
    if not np.allclose(folded, expected, rtol=1e-5, atol=tolerance):
        return (
            "scaling the filter's fake quantization by the batch norm would move "
            "a weight to another level (a rounding tie)"
        )
    return low, high


def requantized_weight(
    quantizer: FakeQuantOp,
    ranges: tuple[np.ndarray, np.ndarray],
    filter_axis: int,
    weights: np.ndarray,
    filter_value: SSAValue,
    user,
    rewriter: PatternRewriter,
) -> SSAValue:
    """fake_quant(weights) with the given per-channel ranges, of `filter_value`'s
    type, before `user`."""
    constant = folded_constant(weights, filter_value, "bn_folded")
    props = fake_quant_props(*ranges, quantizer.bits, quantizer.is_narrow, filter_axis)
    new = FakeQuantOp.create(
        operands=[constant.output],
        result_types=[filter_value.type],
        properties=props,
    )
    new.location = quantizer.location
    rewriter.insert(constant, InsertPoint.before(user))
    rewriter.insert(new, InsertPoint.before(user))
    return new.output
