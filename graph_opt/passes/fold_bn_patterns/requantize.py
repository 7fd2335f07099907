"""Folding a batch norm into per-channel fake-quantized weights (a
quantization-aware-trained conv, as tensorflow-model-optimization writes it).

fake_quant(W * s, min * s, max * s) = s * fake_quant(W, min, max) for s > 0
per output channel: the nudged zero point and the integer levels stay the
same, only the step scales. So the folded filter is the scaled weights under a
fake quantization with scaled ranges. A negative or zero scale would change the
levels (TFLite folds those channels by swapping the range, which moves the
nudged zero point): such a fold is declined with the reason.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from graph_opt.dialects.nn.quant import FakeQuantOp, fake_quant_props
from graph_opt.passes.fold_bn_patterns.weights import folded_constant


def requantize_refusal(
    quantizer: FakeQuantOp, filter_axis: int, scale: np.ndarray
) -> str | None:
    """Why the scale cannot move into this fake quantization's ranges, or None."""
    rank = len(quantizer.input.type.get_shape())  # type: ignore[attr-defined]
    axis = quantizer.axis_value
    if axis is None or axis % rank != filter_axis:
        return "the filter's fake quantization is not per output channel"
    if np.any(scale <= 0):
        return "a batch norm scale is not positive on a fake-quantized filter"
    return None


def requantized_weight(
    quantizer: FakeQuantOp,
    weights: np.ndarray,
    scale: np.ndarray,
    user,
    rewriter: PatternRewriter,
) -> SSAValue:
    """fake_quant(weights) with ranges scaled by `scale`, before `user`."""
    constant = folded_constant(weights, quantizer.input, "bn_folded")
    props = fake_quant_props(
        quantizer.mins.astype(np.float64) * scale,
        quantizer.maxs.astype(np.float64) * scale,
        quantizer.bits,
        quantizer.is_narrow,
        quantizer.axis_value,
    )
    new = FakeQuantOp.create(
        operands=[constant.output],
        result_types=[quantizer.output.type],
        properties=props,
    )
    new.location = quantizer.location
    rewriter.insert(constant, InsertPoint.before(user))
    rewriter.insert(new, InsertPoint.before(user))
    return new.output
