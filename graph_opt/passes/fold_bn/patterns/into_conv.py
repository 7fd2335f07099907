"""Folding a batch norm into the convolution that reads it (BN before conv).

conv(x * s + t, W) + b = conv(x, W * s) + (b + sum over inputs and kernel of W * t),
with s, t per input channel. Exact only without padding: the conv would pad
x * s + t with zeros, not with t.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.conv import ConvOp, resolve_pads
from graph_opt.dialects.nn.layout import (
    CHANNELS_FIRST,
    channel_axis,
    spatial_axes,
)
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.passes.fold_bn.patterns.chain import batch_norm_step
from graph_opt.passes.fold_bn.patterns.channels import ChannelAffine
from graph_opt.passes.fold_bn.patterns.weights import (
    FreedConstants,
    erase_unused,
    float_constant,
    folded_weight,
    operand_constants,
)
from graph_opt.rewriting.erasure import erase_op


@dataclass(frozen=True)
class InputChannelFold:
    """A batch norm and the conv after it, with the conv's constant weights."""

    batch_norm: BatchNormOp
    conv: ConvOp
    affine: ChannelAffine
    weights: np.ndarray
    bias: np.ndarray | None


def plan_input_fold(op: BatchNormOp) -> InputChannelFold | str:
    """The fold of `op` into the conv that reads its result, or why not."""
    conv = op.output.get_user_of_unique_use()
    if not isinstance(conv, ConvOp) or conv.input is not op.output:
        return "its result does not feed exactly one conv input"
    x = ranked(op.input)
    if x is None:
        return "its input is unranked"
    shape = x.get_shape()
    axis = channel_axis(conv.layout, len(shape))
    if channel_axis(op.layout, len(shape)) != axis:
        return "its layout differs from the conv's"
    weights = float_constant(conv.filter, "the conv filter")
    if isinstance(weights, str):
        return weights
    bias = float_constant(conv.bias, "the conv bias") if conv.bias is not None else None
    if isinstance(bias, str):
        return bias
    if _has_padding(conv, shape, weights.shape):
        return "the next conv pads with zeros, which the batch norm would have shifted"
    affine = batch_norm_step(op, shape[axis])
    if isinstance(affine, str):
        return affine
    return InputChannelFold(op, conv, affine, weights, bias)


def _has_padding(conv: ConvOp, shape, filter_shape) -> bool:
    """Whether the conv pads its input (or may, when sizes are unknown)."""
    spatial = [shape[a] for a in spatial_axes(conv.layout, len(shape))]
    kernel = list(
        filter_shape[2:] if conv.layout == CHANNELS_FIRST else filter_shape[:-2]
    )
    if DYN in spatial:
        return True
    strides, dilations, pads, auto_pad = ConvOp.window_props(
        conv.properties, len(spatial)
    )
    explicit = resolve_pads(auto_pad, pads, spatial, kernel, strides, dilations)
    return explicit is None or any(explicit)


def erase_input_fold(plan: InputChannelFold, rewriter: PatternRewriter) -> None:
    """Replace the conv by one reading the batch norm's input, and drop the batch norm."""
    conv, layout = plan.conv, plan.conv.layout
    oihw = plan.weights if layout == CHANNELS_FIRST else _hwio_to_oihw(plan.weights)
    out_channels, per_group = oihw.shape[:2]
    group = int_value(conv.properties, "group", 1)

    # Filter element [o, c] reads input channel (o's group) * per_group + c.
    def per_filter_entry(vector: np.ndarray) -> np.ndarray:
        grouped = np.repeat(vector.reshape(group, per_group), out_channels // group, 0)
        return grouped.reshape(grouped.shape + (1,) * (oihw.ndim - 2))

    scaled = oihw * per_filter_entry(plan.affine.scale)
    shift = (oihw * per_filter_entry(plan.affine.shift)).sum(
        axis=tuple(range(1, oihw.ndim))
    )
    old_bias = np.zeros(out_channels) if plan.bias is None else plan.bias
    new_bias = (
        folded_weight(  # first: it may be named after the filter, renamed in place
            old_bias + shift,
            conv.filter if conv.bias is None else conv.bias,
            "bn_bias",
            conv,
            rewriter,
            replaces=conv.bias is not None,
            freed=FreedConstants.read_only_by([plan.batch_norm]),
        )
    )
    new_filter = folded_weight(
        scaled if layout == CHANNELS_FIRST else _oihw_to_hwio(scaled),
        conv.filter,
        "bn_folded",
        conv,
        rewriter,
    )
    constants = operand_constants([plan.batch_norm])
    conv.operands = [plan.batch_norm.input, new_filter, new_bias]
    rewriter.notify_op_modified(conv)
    erase_op(rewriter, plan.batch_norm)
    erase_unused(constants, rewriter)


def _hwio_to_oihw(w: np.ndarray) -> np.ndarray:
    return np.moveaxis(np.moveaxis(w, -1, 0), -1, 1)


def _oihw_to_hwio(w: np.ndarray) -> np.ndarray:
    return np.moveaxis(np.moveaxis(w, 0, -1), 0, -2)
