"""Lowering of 1-D and 2-D convolutions, transposed convolutions and pooling to
TOSA's NHWC conv2d, depthwise_conv2d, transpose_conv2d and pools (grouped
convolutions: one TOSA conv per group, concatenated).

NCHW data is transposed to NHWC around the TOSA op; filters are permuted to OHWI
(conv2d) or HWCM (depthwise_conv2d), at compile time when they are constants.
TOSA needs (in + pads - window) to divide by the stride: the end pad is trimmed
(or the input sliced) to the size the nn op's result type gives.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import tosa
from xdsl.dialects.builtin import AnyFloat, IntegerAttr, TensorType, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.base import i64_array, int_value
from graph_opt.dialects.nn.conv import (
    ConvOp,
    ConvTransposeOp,
    resolve_pads,
    transposed_pads_and_sizes,
)
from graph_opt.dialects.nn.fused import FusedConvOp
from graph_opt.dialects.nn.layout import CHANNELS_FIRST, split_filter_shape
from graph_opt.dialects.nn.pool import AvgPoolOp, GlobalAvgPoolOp, MaxPoolOp
from graph_opt.dialects.nn.qint import QConvOp, QConvTransposeOp
from graph_opt.dialects.nn.qpool import QAvgPoolOp
from graph_opt.lowering.lowering_pattern import LoweringPattern, constant_array
from graph_opt.lowering.tosa_builder import (
    HWIO_TO_OHWI,
    HWOI_TO_OHWI,
    IOHW_TO_OHWI,
    NCHW_TO_NHWC,
    NHWC_TO_NCHW,
    OIHW_TO_OHWI,
    TosaBuilder,
    element_of,
    shape_of,
)
from graph_opt.lowering.tosa_elementwise import activation, is_float
from graph_opt.lowering.tosa_tensor import slice_along


def to_nhwc(b: TosaBuilder, x: SSAValue, layout: str) -> SSAValue:
    return b.transpose(x, NCHW_TO_NHWC) if layout == CHANNELS_FIRST else x


def from_nhwc(b: TosaBuilder, y: SSAValue, layout: str) -> SSAValue:
    return b.transpose(y, NHWC_TO_NCHW) if layout == CHANNELS_FIRST else y


def nhwc_shape(shape: tuple[int, ...], layout: str) -> tuple[int, ...]:
    if layout == CHANNELS_FIRST:
        return tuple(shape[p] for p in NCHW_TO_NHWC)
    return shape


def with_unit_height_shape(
    shape: tuple[int, ...], layout: str, is_filter: bool = False
) -> tuple[int, ...]:
    """A 1-D conv's NCW / NWC data shape (or OIW / WIO filter shape) as 2-D, of height 1."""
    at = 2 if layout == CHANNELS_FIRST else 0 if is_filter else 1
    return (*shape[:at], 1, *shape[at:])


def with_unit_height(
    b: TosaBuilder, value: SSAValue, layout: str, is_filter: bool = False
) -> SSAValue:
    """`value` reshaped by with_unit_height_shape: folded when constant."""
    shape = with_unit_height_shape(shape_of(value), layout, is_filter)
    array = constant_array(value)
    if array is None:
        return b.reshape(value, shape)
    return b.const(array.reshape(shape))


def permuted(b: TosaBuilder, value: SSAValue, perm: tuple[int, ...]) -> SSAValue:
    """A filter permuted: folded when constant, a tosa.transpose otherwise."""
    array = constant_array(value)
    if array is None:
        return b.transpose(value, perm)
    return b.transpose_const(array, perm)


def fit_window(
    b: TosaBuilder,
    x: SSAValue,
    pads: list[int],
    windows: list[int],
    strides: list[int],
    out_sizes: list[int],
) -> tuple[SSAValue, list[int]]:
    """TOSA pad [top, bottom, left, right] giving exactly `out_sizes`; x sliced if an end pad goes negative."""
    in_sizes = list(shape_of(x)[1:3])
    tosa_pads, crop = [], []
    for axis in range(2):
        begin = pads[axis]
        end = (
            (out_sizes[axis] - 1) * strides[axis]
            + windows[axis]
            - in_sizes[axis]
            - begin
        )
        tosa_pads += [begin, max(end, 0)]
        crop.append(max(-end, 0))
    if any(crop):
        shape = shape_of(x)
        size = [shape[0], shape[1] - crop[0], shape[2] - crop[1], shape[3]]
        x = b.add(
            tosa_ext.SliceOp.build(
                operands=[x, b.const_shape([0, 0, 0, 0]), b.const_shape(size)],
                result_types=[TensorType(element_of(x), size)],
            )
        )
    return x, tosa_pads


def per_group(
    b: TosaBuilder,
    operands: list[SSAValue],
    groups: int,
    weight_axis: int,
    out_shape: tuple[int, ...],
    build: Callable[[list[SSAValue], tuple[int, ...]], SSAValue],
) -> SSAValue:
    """`build([x, weight, bias], shape)` on each group's channel slices (x's
    last axis, `weight_axis` of the weight, the bias), NHWC results
    concatenated on the channels; once on the whole operands when one group."""
    if groups == 1:
        return build(operands, out_shape)
    x, weight, bias = operands
    inputs, outputs = shape_of(x)[3] // groups, out_shape[3] // groups
    weights = shape_of(weight)[weight_axis] // groups
    part_shape = (*out_shape[:3], outputs)
    parts = [
        build(
            [
                slice_along(b, x, {3: (g * inputs, inputs)}),
                slice_along(b, weight, {weight_axis: (g * weights, weights)}),
                slice_along(b, bias, {0: (g * outputs, outputs)}),
            ],
            part_shape,
        )
        for g in range(groups)
    ]
    element = element_of(parts[0])
    return b.add(
        tosa.ConcatOp(parts, IntegerAttr(3, i32), TensorType(element, out_shape))
    )


class LowerConv(LoweringPattern):
    """nn.conv / nn.fused_conv / nn.qconv (1-D or 2-D) -> tosa.conv2d / tosa.depthwise_conv2d;
    a grouped conv that is not depthwise is one conv2d per group, concatenated.

    nn.qconv (i8 x i8, zero points) accumulates in i32, as TOSA's integer profile does.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ConvOp | FusedConvOp | QConvOp):
            return
        x, w = op.operands[0], op.operands[1]
        spatial_rank = len(shape_of(x)) - 2
        if spatial_rank not in (1, 2):
            self.decline(op, "only 1-D and 2-D convolutions lower to TOSA")
            return
        integer = isinstance(op, QConvOp)
        if not integer and not is_float(x):
            self.decline(op, "integer convolutions lower through nn.qconv")
            return
        layout = op.layout
        out_channels, in_per_group, kernel = split_filter_shape(layout, shape_of(w))
        group = int_value(op.properties, "group", 1)
        depthwise = group > 1 and in_per_group == 1
        b = TosaBuilder()
        strides, dilations, pads, auto_pad = op.window_props(
            op.properties, spatial_rank
        )
        sizes = list(shape_of(x)[2:] if layout == CHANNELS_FIRST else shape_of(x)[1:-1])
        explicit = resolve_pads(auto_pad, pads, sizes, kernel, strides, dilations)
        out_shape = shape_of(op.results[0])
        if spatial_rank == 1:  # a 2-D conv of height 1
            x = with_unit_height(b, x, layout)
            w = with_unit_height(b, w, layout, is_filter=True)
            out_shape = with_unit_height_shape(out_shape, layout)
            kernel, strides, dilations = ([1, *v] for v in (kernel, strides, dilations))
            explicit = [0, explicit[0], 0, explicit[1]]
        x_nhwc = to_nhwc(b, x, layout)
        accumulator = i32 if integer else element_of(x)
        weight = self.weight(b, w, layout, group if depthwise else 0)
        bias = (
            op.operands[2]
            if len(op.operands) == 3
            else b.const(np.zeros(out_channels), accumulator)
        )
        out_shape = nhwc_shape(out_shape, layout)
        windows = [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]
        x_nhwc, tosa_pads = fit_window(
            b, x_nhwc, explicit, windows, strides, list(out_shape[1:3])
        )
        zero_points = [
            b.scalar(int_value(op.properties, name, 0), element_of(value))
            for name, value in (("input_zp", x), ("weight_zp", w))
        ]
        conv_type = tosa_ext.DepthwiseConv2DOp if depthwise else tosa_ext.Conv2DOp
        props = {
            "pad": i64_array(tosa_pads),
            "stride": i64_array(strides),
            "dilation": i64_array(dilations),
            "acc_type": accumulator,
        }

        def conv(operands: list[SSAValue], shape: tuple[int, ...]) -> SSAValue:
            return b.add(
                conv_type.build(
                    operands=[*operands, *zero_points],
                    properties=props,
                    result_types=[TensorType(accumulator, shape)],
                )
            )

        operands = [x_nhwc, weight, bias]
        y = per_group(b, operands, 1 if depthwise else group, 0, out_shape, conv)
        if isinstance(op, FusedConvOp):
            activated = activation(b, y, op.activation_name, op.activation_values)
            if activated is None:
                self.decline(op, f"unknown activation {op.activation_name}")
                return
            y = activated
        y = b.reshape(from_nhwc(b, y, layout), shape_of(op.results[0]))
        rewriter.replace(op, b.ops, [y])

    @staticmethod
    def weight(b: TosaBuilder, w: SSAValue, layout: str, depthwise_channels: int):
        """The filter as OHWI, or as HWCM for a depthwise conv over that many channels."""
        if not depthwise_channels:
            return permuted(
                b, w, OIHW_TO_OHWI if layout == CHANNELS_FIRST else HWIO_TO_OHWI
            )
        if layout == CHANNELS_FIRST:
            w = permuted(b, w, (2, 3, 1, 0))  # OIHW (I = 1) -> HW1O
        kh, kw, _, out = shape_of(w)
        return b.reshape(w, (kh, kw, depthwise_channels, out // depthwise_channels))


class LowerConvTranspose(LoweringPattern):
    """nn.conv_transpose / nn.qconv_transpose (2-D, no dilation) ->
    tosa.transpose_conv2d, one per group on channel slices, concatenated;
    nn.qconv_transpose (i8 x i8, zero points) accumulates in i32.

    TOSA scatters input (y, x) times the kernel to stride * (y, x) + out_pad
    (top, left), as ONNX does before cropping its pads: the begin pads become a
    negative out_pad, the end ones what the result size leaves.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ConvTransposeOp | QConvTransposeOp):
            return
        x, w = op.operands[0], op.operands[1]
        reason = self.unsupported(op, x)
        if reason:
            self.decline(op, reason)
            return
        layout = op.layout
        _, out_per_group, kernel = split_filter_shape(layout, shape_of(w))
        strides, dilations, pads, auto_pad, output_padding, output_shape = (
            ConvTransposeOp.transpose_props(op.properties, 2)
        )
        if dilations != [1, 1]:
            self.decline(op, "TOSA's transpose_conv2d has no dilation")
            return
        b = TosaBuilder()
        x_nhwc = to_nhwc(b, x, layout)
        sizes = list(shape_of(x_nhwc)[1:3])
        explicit, _ = transposed_pads_and_sizes(
            sizes, kernel, strides, dilations, pads, auto_pad, output_padding,
            output_shape,
        )  # fmt: skip
        out_shape = nhwc_shape(shape_of(op.results[0]), layout)
        out_pad = []
        for axis in range(2):
            top = -explicit[axis]  # type: ignore[index]
            full = (sizes[axis] - 1) * strides[axis] + kernel[axis]
            out_pad += [top, out_shape[axis + 1] - full - top]
        accumulator = i32 if isinstance(op, QConvTransposeOp) else element_of(x)
        weight = permuted(
            b, w, IOHW_TO_OHWI if layout == CHANNELS_FIRST else HWOI_TO_OHWI
        )
        group = int_value(op.properties, "group", 1)
        bias = (
            op.operands[2]
            if len(op.operands) == 3
            else b.const(np.zeros(out_per_group * group), accumulator)
        )
        zero_points = [
            b.scalar(int_value(op.properties, name, 0), element_of(value))
            for name, value in (("input_zp", x), ("weight_zp", w))
        ]
        props = {
            "out_pad": i64_array(out_pad),
            "stride": i64_array(strides),
            "acc_type": accumulator,
        }

        def transpose_conv(operands: list[SSAValue], shape: tuple[int, ...]):
            return b.add(
                tosa_ext.TransposeConv2DOp.build(
                    operands=[*operands, *zero_points],
                    properties=props,
                    result_types=[TensorType(accumulator, shape)],
                )
            )

        # OHWI with I the input channels: a group's filter is a slice of I
        operands = [x_nhwc, weight, bias]
        y = per_group(b, operands, group, 3, out_shape, transpose_conv)
        rewriter.replace(op, b.ops, [from_nhwc(b, y, layout)])

    @staticmethod
    def unsupported(op: ConvTransposeOp | QConvTransposeOp, x: SSAValue) -> str | None:
        if len(shape_of(x)) != 4:
            return "only 2-D transposed convolutions lower to TOSA"
        if isinstance(op, ConvTransposeOp) and not is_float(x):
            return "integer transposed convolutions lower through nn.qconv_transpose"
        return None


class LowerPool(LoweringPattern):
    """nn.max_pool / nn.avg_pool (2-D) -> tosa.max_pool2d / tosa.avg_pool2d (max
    also on int8); nn.qavg_pool -> int8 tosa.avg_pool2d with its zero points."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, MaxPoolOp | AvgPoolOp | QAvgPoolOp):
            return
        x = op.operands[0]
        integer = isinstance(op, MaxPoolOp | QAvgPoolOp)
        if len(shape_of(x)) != 4 or not (is_float(x) or integer):
            self.decline(
                op,
                "only 2-D float pooling lowers to TOSA (and int max pooling, "
                "nn.qavg_pool)",
            )
            return
        layout = op.layout
        kernel, strides, dilations, pads, auto_pad, ceil = op.pool_props(
            op.properties, 2
        )
        include_pad = int_value(op.properties, "count_include_pad", 0)
        if dilations != [1, 1]:
            self.decline(op, "TOSA pools have no dilation")
            return
        b = TosaBuilder()
        x_nhwc = to_nhwc(b, x, layout)
        sizes = list(shape_of(x_nhwc)[1:3])
        explicit = resolve_pads(auto_pad, pads, sizes, kernel, strides, dilations)
        out_shape = nhwc_shape(shape_of(op.results[0]), layout)
        if include_pad and any(explicit):
            if ceil:
                self.decline(op, "ceil_mode with count_include_pad")
                return
            x_nhwc = self.zero_pad(b, x_nhwc, explicit)
            explicit = [0, 0, 0, 0]
        x_nhwc, tosa_pads = fit_window(
            b, x_nhwc, explicit, kernel, strides, list(out_shape[1:3])
        )
        zero_points = (
            int_value(op.properties, "input_zp", 0),
            int_value(op.properties, "output_zp", 0),
        )
        y = pool(
            b, type(op), x_nhwc, kernel, strides, tosa_pads, out_shape, zero_points
        )
        rewriter.replace(op, b.ops, [from_nhwc(b, y, layout)])

    @staticmethod
    def zero_pad(b: TosaBuilder, x: SSAValue, pads: list[int]) -> SSAValue:
        shape = shape_of(x)
        padding = [0, 0, pads[0], pads[2], pads[1], pads[3], 0, 0]
        out = [
            shape[0],
            shape[1] + pads[0] + pads[2],
            shape[2] + pads[1] + pads[3],
            shape[3],
        ]
        return b.add(
            tosa_ext.PadOp.build(
                operands=[x, b.const_shape(padding), b.zero_point(element_of(x))],
                result_types=[TensorType(element_of(x), out)],
            )
        )


def pool(
    b: TosaBuilder,
    op_type: type[Operation],
    x: SSAValue,
    kernel: list[int],
    strides: list[int],
    pads: list[int],
    out_shape: tuple[int, ...],
    zero_points: tuple[int, int] = (0, 0),
) -> SSAValue:
    """A TOSA max or average pool; an integer average takes `zero_points`
    (input, output) and accumulates in i32."""
    element: Attribute = element_of(x)
    props: dict[str, Attribute] = {
        "kernel": i64_array(kernel),
        "stride": i64_array(strides),
        "pad": i64_array(pads),
    }
    result_type = TensorType(element, out_shape)
    if op_type is MaxPoolOp:
        return b.add(
            tosa.MaxPool2DOp.build(
                operands=[x], properties=props, result_types=[result_type]
            )
        )
    input_zp = b.scalar(zero_points[0], element)
    same = zero_points[1] == zero_points[0]
    output_zp = input_zp if same else b.scalar(zero_points[1], element)
    accumulator = element if isinstance(element, AnyFloat) else i32
    return b.add(
        tosa.AvgPool2DOp.build(
            operands=[x, input_zp, output_zp],
            properties={**props, "acc_type": accumulator},
            result_types=[result_type],
        )
    )


class LowerGlobalAvgPool(LoweringPattern):
    """nn.global_avg_pool (2-D) -> tosa.avg_pool2d over the whole image."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, GlobalAvgPoolOp):
            return
        x = op.operands[0]
        if len(shape_of(x)) != 4 or not is_float(x):
            self.decline(op, "only 2-D float pooling lowers to TOSA")
            return
        b = TosaBuilder()
        x_nhwc = to_nhwc(b, x, op.layout)
        n, h, w, c = shape_of(x_nhwc)
        y = pool(b, AvgPoolOp, x_nhwc, [h, w], [1, 1], [0, 0, 0, 0], (n, 1, 1, c))
        rewriter.replace(op, b.ops, [from_nhwc(b, y, op.layout)])
