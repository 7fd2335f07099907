"""Folding a per-channel affine map of a linear op's output into the op's weights."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects.nn.base import f32_attr, float_value, int_value
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp, ConvTransposeOp
from graph_opt.dialects.nn.dense import scaled
from graph_opt.dialects.nn.elementwise import AddOp
from graph_opt.dialects.nn.layout import CHANNELS_FIRST, channel_axis
from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.passes.fold_bn.patterns.channels import ChannelAffine
from graph_opt.passes.fold_bn.patterns.requantize import (
    requantized_ranges,
    requantized_weight,
)
from graph_opt.passes.fold_bn.patterns.weights import (
    FreedConstants,
    along,
    float_constant,
    float_constant_op,
    folded_constant,
    folded_weight,
)

Rewrite = Callable[[ChannelAffine, PatternRewriter, FreedConstants], None]
"""Folds an affine map into the linear op: its result then carries the mapped
values. The constants it adds may take freed ones."""


@dataclass(frozen=True)
class OutputChannelFold:
    """A linear op whose output channels lie on `axis`; `rewrite` folds an affine map into it."""

    axis: int
    channels: int
    rewrite: Rewrite
    refuses: Callable[[ChannelAffine], str | None] = lambda affine: None
    """Why this op cannot take that map (checked before `rewrite`)."""


def output_channel_fold(op: Operation) -> OutputChannelFold | str:
    """How to fold into `op`, or why it cannot take a fold."""
    planner = _PLANNERS.get(type(op))
    if planner is None:
        return f"its input comes from {op.name}, not a foldable linear op"
    result = ranked(op.results[0])
    if result is None:
        return f"the {op.name} result is unranked"
    return planner(op, result.get_shape())


def _filter_and_bias(
    op: ConvOp | ConvTransposeOp,
) -> tuple[SSAValue, ConstantOp | np.ndarray, SSAValue | None, np.ndarray | None] | str:
    """(filter, its constant (values not read) or the array a fake
    quantization reads, bias or None, its array) of a conv-like op with
    constant weights."""
    operands = op.operands  # [input, filter, bias?]: cheaper than the accessors
    filter_value = operands[1]
    bias_value = operands[2] if len(operands) == 3 else None
    weights = float_constant_op(filter_value, f"the {op.name} filter")
    if isinstance(weights, str):
        quantized = _quantized_weights(filter_value)
        if quantized is None:
            return _fake_quantized_reason(filter_value, op) or weights
        weights = quantized
    bias = None
    if bias_value is not None:
        bias = float_constant(bias_value, f"the {op.name} bias")
        if isinstance(bias, str):
            return bias
    return filter_value, weights, bias_value, bias


def _conv_like(
    op: ConvOp | ConvTransposeOp,
    out_shape: tuple[int, ...],
    factor: Callable[[tuple[int, ...], np.ndarray], np.ndarray],
) -> OutputChannelFold | str:
    """Fold into a conv-like op; `factor(filter shape, vector)` spreads a
    per-output-channel vector over the filter's entries. A constant filter
    is scaled lazily (`dense.scaled`: a mapped one stays W times s, computed
    when read or written), a fake-quantized one at once."""
    found = _filter_and_bias(op)
    if isinstance(found, str):
        return found
    filter_value, weights, bias_value, bias = found
    shape = (
        weights.shape if isinstance(weights, np.ndarray) else weights.value.get_shape()
    )
    axis = channel_axis(op.layout, len(out_shape))
    channels = out_shape[axis]
    if channels == DYN:
        return f"the {op.name} output channel count is unknown"

    quantizer = _quantizer(filter_value)

    requantized: dict[str, tuple[int, tuple[np.ndarray, np.ndarray]]] = {}

    def refuses(affine: ChannelAffine) -> str | None:
        if quantizer is None:
            return None
        filter_axis = _output_channel_axis(factor(shape, np.arange(channels)))
        if filter_axis is None:
            return "the filter's output channels do not lie on one axis"
        ranges = requantized_ranges(
            quantizer,
            quantizer_axis(filter_value, quantizer),
            filter_axis,
            affine.scale,
            weights,
        )
        if isinstance(ranges, str):
            return ranges
        requantized["ranges"] = (filter_axis, ranges)
        return None

    def rewrite(
        affine: ChannelAffine, rewriter: PatternRewriter, freed: FreedConstants
    ) -> None:
        """New filter and bias values; the op itself is only given them (cheaper than a copy).
        The bias comes first: it may be named after the filter, renamed in place."""
        if bias is None:
            bias_array = affine.shift
        else:
            bias_array = bias.astype(np.float64) * affine.scale + affine.shift
        new_bias = folded_weight(
            bias_array,
            filter_value if bias_value is None else bias_value,
            "bn_bias",
            op,
            rewriter,
            replaces=bias_value is not None,
            freed=freed,
        )
        if isinstance(weights, ConstantOp):
            new_filter = folded_weight(
                scaled(weights.value, factor(shape, affine.scale)),
                filter_value,
                "bn_folded",
                op,
                rewriter,
            )
        else:
            filter_axis, ranges = requantized["ranges"]
            new_filter = requantized_weight(
                quantizer, ranges, filter_axis,
                weights * factor(shape, affine.scale), filter_value, op, rewriter,
            )  # fmt: skip
        if new_filter is not filter_value or new_bias is not bias_value:
            op.operands = [op.operands[0], new_filter, new_bias]
        rewriter.notify_op_modified(op)

    return OutputChannelFold(axis, channels, rewrite, refuses)


def _output_channel_axis(spread: np.ndarray) -> int | None:
    """The one filter axis along which the channel numbers `spread` (a factor
    of 0, 1, ... over the output channels) vary; None when they vary along
    several axes (a grouped transposed conv) or the filter has one channel."""
    varying = [
        axis
        for axis in range(spread.ndim)
        if spread.shape[axis] > 1 and np.ptp(spread, axis=axis).any()
    ]
    return varying[0] if len(varying) == 1 else None


def _quantizer(value: SSAValue) -> FakeQuantOp | None:
    """The nn.fake_quant of constant weights that `value` is (used only here),
    maybe through a reshape that keeps its channels (TF's depthwise filters)."""
    owner = value.owner
    if isinstance(owner, ReshapeOp) and value.has_one_use():
        if _axis_through_reshape(owner) is False:
            return None
        value = owner.input
        owner = value.owner
    if not isinstance(owner, FakeQuantOp) or not value.has_one_use():
        return None
    return None if isinstance(float_constant(owner.input, ""), str) else owner


def quantizer_axis(filter_value: SSAValue, quantizer: FakeQuantOp) -> int | None:
    """The quantizer's channel axis on the filter (through a reshape), None per tensor."""
    owner = filter_value.owner
    if isinstance(owner, ReshapeOp):
        return _axis_through_reshape(owner)  # type: ignore[return-value]
    return quantizer.axis_value


def _axis_through_reshape(reshape: ReshapeOp) -> int | None | bool:
    """Where a fake quantization's channel axis lands after a reshape that only
    moves size-1 dims: None per tensor, False when the channels do not map."""
    quantizer = reshape.input.owner
    if not isinstance(quantizer, FakeQuantOp):
        return False
    if quantizer.axis is None or len(quantizer.mins) == 1:
        return None  # one range: per tensor, whatever its axis
    before, after = ranked(reshape.input), ranked(reshape.output)
    if before is None or after is None:
        return False
    old, new = list(before.get_shape()), list(after.get_shape())
    if [d for d in old if d != 1] != [d for d in new if d != 1]:
        return False
    axis = quantizer.axis_value
    if axis is None or old[axis] == 1:
        return False
    rank_among_kept = sum(1 for d in old[:axis] if d != 1)
    kept = [i for i, d in enumerate(new) if d != 1]
    return kept[rank_among_kept]


def _quantized_weights(value: SSAValue) -> np.ndarray | None:
    """The constant weights `value` fake-quantizes, in `value`'s shape."""
    quantizer = _quantizer(value)
    if quantizer is None:
        return None
    weights = float_constant(quantizer.input, "")
    shape = ranked(value)
    if isinstance(weights, str) or shape is None or DYN in shape.get_shape():
        return None
    return weights.reshape(shape.get_shape())


def _fake_quantized_reason(value: SSAValue, op: Operation) -> str | None:
    """Why a fake-quantized filter (maybe reshaped, as TF's depthwise filters
    are) cannot take the fold, or None when it is not fake-quantized."""
    owner = value.owner
    if isinstance(owner, ReshapeOp) and isinstance(owner.input.owner, FakeQuantOp):
        return f"the {op.name} filter is reshaped after a per-channel fake quantization"
    if not isinstance(owner, FakeQuantOp):
        return None
    if not value.has_one_use():
        return f"the {op.name} filter's fake quantization has other users"
    return f"the {op.name} filter's fake quantization is not of constant weights"


def _conv(op: ConvOp, out_shape: tuple[int, ...]) -> OutputChannelFold | str:
    """OIHW filters have output channels on axis 0, HWIO ones on the last axis."""

    def factor(shape: tuple[int, ...], vector: np.ndarray) -> np.ndarray:
        filter_axis = 0 if op.layout == CHANNELS_FIRST else len(shape) - 1
        return along(vector, filter_axis, len(shape))

    return _conv_like(op, out_shape, factor)


def _conv_transpose(
    op: ConvTransposeOp, out_shape: tuple[int, ...]
) -> OutputChannelFold | str:
    """IOHW (HWOI) filter entry [i, j] feeds output channel (i's group) * C_out/group + j."""
    group = int_value(op.properties, "group", 1)

    def factor(shape: tuple[int, ...], vector: np.ndarray) -> np.ndarray:
        first = op.layout == CHANNELS_FIRST
        in_channels = shape[0 if first else -1]
        per_entry = np.repeat(vector.reshape(group, -1), in_channels // group, 0)
        if first:
            return per_entry.reshape(per_entry.shape + (1,) * (len(shape) - 2))
        return per_entry.T.reshape((1,) * (len(shape) - 2) + per_entry.T.shape)

    return _conv_like(op, out_shape, factor)


def _matmul(op: MatMulOp, out_shape: tuple[int, ...]) -> OutputChannelFold | str:
    """x @ W with a constant W of rank >= 2: output channels are W's columns; the
    shift becomes an nn.add after the matmul."""
    weights = float_constant_op(op.rhs, "the matmul rhs")
    if isinstance(weights, str):
        return weights
    shape = weights.value.get_shape()  # (its values are read only to fold)
    if len(shape) < 2:
        return "the matmul rhs is a vector"
    channels = shape[-1]

    def rewrite(
        affine: ChannelAffine, rewriter: PatternRewriter, freed: FreedConstants
    ) -> None:
        shift = None  # named after the rhs before it may be renamed in place
        if np.any(affine.shift):
            shift = folded_constant(affine.shift, op.rhs, "bn_bias")
        new_rhs = folded_weight(
            scaled(weights.value, affine.scale), op.rhs, "bn_folded", op, rewriter
        )
        matmul = MatMulOp.create_inferred(
            [op.lhs, new_rhs], op.properties, [op.output.type]
        )
        matmul.location = op.location
        if shift is None:
            rewriter.replace(op, [matmul], [matmul.output])
            return
        add = AddOp.create_inferred([matmul, shift], {}, [op.output.type])
        rewriter.replace(op, [shift, matmul, add], [add.output])

    return OutputChannelFold(len(out_shape) - 1, channels, rewrite)


def _gemm(op: GemmOp, out_shape: tuple[int, ...]) -> OutputChannelFold | str:
    """alpha * a @ b + beta * c: scale b's output columns (lazily, as for
    matmul); c becomes beta * c * s + t, beta 1."""
    weights = float_constant_op(op.b, "the gemm b")
    if isinstance(weights, str):
        return weights
    shape = weights.value.get_shape()  # (b's values are read only to fold)
    c = float_constant(op.c, "the gemm c") if op.c is not None else None
    if isinstance(c, str):
        return c
    b_axis = 0 if int_value(op.properties, "trans_b", 0) else 1
    beta = float_value(op.properties, "beta", 1.0)

    def rewrite(
        affine: ChannelAffine, rewriter: PatternRewriter, freed: FreedConstants
    ) -> None:
        old_c = np.zeros(()) if c is None else beta * c.astype(np.float64)
        new_c = folded_weight(  # first: it may be named after b, renamed in place
            old_c * affine.scale + affine.shift,
            op.b if op.c is None else op.c,
            "bn_bias",
            op,
            rewriter,
            replaces=op.c is not None,
            freed=freed,
        )
        new_b = folded_weight(
            scaled(weights.value, along(affine.scale, b_axis, 2)),
            op.b,
            "bn_folded",
            op,
            rewriter,
        )
        properties = {**op.properties, "beta": f32_attr(1.0)}
        gemm = GemmOp.create_inferred(
            [op.a, new_b, new_c], properties, [op.output.type]
        )
        gemm.location = op.location
        rewriter.replace(op, [gemm], [gemm.output])

    return OutputChannelFold(1, shape[b_axis], rewrite)


_PLANNERS: dict[type[Operation], Callable[..., OutputChannelFold | str]] = {
    ConvOp: _conv,
    ConvTransposeOp: _conv_transpose,
    MatMulOp: _matmul,
    GemmOp: _gemm,
}
