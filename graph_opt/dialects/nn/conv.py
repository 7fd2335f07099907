"""Convolutions over 1-D, 2-D and 3-D data, channels-first (ONNX) or channels-last (TensorFlow)."""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import (
    GENERIC_FORMAT,
    NNOperation,
    PropertyDefaults,
    int_list,
    int_value,
    str_value,
)
from graph_opt.dialects.nn.layout import (
    CHANNELS_FIRST,
    HasDataLayout,
    check_layout,
    join_data_shape,
    split_data_shape,
    split_filter_shape,
)
from graph_opt.dialects.nn.shapes import DYN, ranked, tensor_type, window_output_size

AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def resolve_pads(
    auto_pad: str,
    pads: tuple[int, ...] | None,
    sizes: list[int],
    kernel: list[int],
    strides: list[int],
    dilations: list[int],
) -> list[int] | None:
    """Explicit [begin..., end...] pads; None when `auto_pad` needs an unknown size."""
    rank = len(sizes)
    if auto_pad in ("NOTSET", "VALID"):
        return list(pads) if pads and auto_pad == "NOTSET" else [0] * (2 * rank)
    begins, ends = [], []
    for size, k, s, d in zip(sizes, kernel, strides, dilations):
        if size == DYN:
            return None
        out = -(-size // s)
        total = max(0, (out - 1) * s + d * (k - 1) + 1 - size)
        small, large = total // 2, total - total // 2
        begins.append(small if auto_pad == "SAME_UPPER" else large)
        ends.append(large if auto_pad == "SAME_UPPER" else small)
    return begins + ends


def window_output_sizes(
    sizes: list[int],
    kernel: list[int],
    strides: list[int],
    dilations: list[int],
    pads: tuple[int, ...] | None,
    auto_pad: str,
    ceil: bool = False,
) -> list[int]:
    """Spatial output sizes of a sliding-window op (conv, pooling); -1 where unknown.

    With `ceil`, a last window that would start in the end padding is dropped
    (as onnxruntime and PyTorch do).
    """
    explicit = resolve_pads(auto_pad, pads, sizes, kernel, strides, dilations)
    if explicit is None:
        return [DYN] * len(sizes)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return [-(-s // st) for s, st in zip(sizes, strides)]
    n = len(sizes)
    out = []
    for i, (s, k, st, d) in enumerate(zip(sizes, kernel, strides, dilations)):
        size = window_output_size(s, k, st, explicit[i] + explicit[i + n], d, ceil)
        if ceil and size != DYN and (size - 1) * st >= s + explicit[i]:
            size -= 1
        out.append(size)
    return out


class WindowAttributes:
    """Accessors for the window properties that conv and pooling ops share."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"auto_pad": "NOTSET"}

    def spatial_rank(self) -> int:
        return len(self.operands[0].type.get_shape()) - 2  # type: ignore[attr-defined]

    @staticmethod
    def window_props(props, spatial_rank: int):
        strides = list(int_list(props, "strides") or (1,) * spatial_rank)
        dilations = list(int_list(props, "dilations") or (1,) * spatial_rank)
        pads = int_list(props, "pads")
        auto_pad = str_value(props, "auto_pad", "NOTSET")
        if len(strides) != spatial_rank or len(dilations) != spatial_rank:
            raise VerifyException(f"strides and dilations need {spatial_rank} values")
        if pads is not None and len(pads) != 2 * spatial_rank:
            raise VerifyException(f"pads needs {2 * spatial_rank} values")
        if auto_pad not in AUTO_PADS:
            raise VerifyException(f"auto_pad must be one of {AUTO_PADS}")
        if any(v < 1 for v in strides + dilations):
            raise VerifyException("strides and dilations must be positive")
        return strides, dilations, pads, auto_pad


def check_conv_ranks(op_name: str, x_shape, w_shape) -> None:
    if not 3 <= len(x_shape) <= 5 or len(w_shape) != len(x_shape):
        raise VerifyException(
            f"{op_name} needs input and filter of equal rank 3 to 5, got {len(x_shape)} and {len(w_shape)}"
        )


def check_bias(operands, out_channels: int) -> None:
    """The optional third operand must be a vector over the output channels."""
    b = ranked(operands[2]) if len(operands) == 3 else None
    if (
        b is not None
        and out_channels != DYN
        and b.get_shape() not in ((out_channels,), (DYN,))
    ):
        raise VerifyException(
            f"bias must have shape [{out_channels}], got {list(b.get_shape())}"
        )


class ConvolutionBase(NNOperation, WindowAttributes, HasDataLayout, ABC):
    """Operands and window properties shared by nn.conv, nn.conv_transpose and nn.fused_conv."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"group": 1}

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    input = operand_def()
    filter = operand_def()
    bias = opt_operand_def()
    output = result_def()
    strides = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    group = opt_prop_def(IntegerAttr)
    auto_pad = opt_prop_def(StringAttr)
    data_layout = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT


@irdl_op_definition
class ConvOp(ConvolutionBase):
    """N-D convolution with groups (depthwise when group == channels).

    `data_layout` is NCHW (filter OIHW) or NHWC (filter HWIO); pads are
    [begin..., end...] per spatial dim, or derived from `auto_pad`.
    """

    name = "nn.conv"

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        layout = str_value(props, "data_layout", CHANNELS_FIRST)
        check_layout(layout)
        x, w = ranked(operands[0]), ranked(operands[1])
        if x is None or w is None:
            return None
        x_shape, w_shape = x.get_shape(), w.get_shape()
        check_conv_ranks(cls.name, x_shape, w_shape)
        batch, channels, sizes = split_data_shape(layout, x_shape)
        out_channels, in_per_group, kernel = split_filter_shape(layout, w_shape)
        group = int_value(props, "group", 1)
        strides, dilations, pads, auto_pad = cls.window_props(props, len(sizes))
        if group < 1 or (out_channels != DYN and out_channels % group):
            raise VerifyException(
                f"group {group} does not divide {out_channels} output channels"
            )
        if DYN not in (channels, in_per_group) and channels != in_per_group * group:
            raise VerifyException(
                f"input has {channels} channels, filter expects {in_per_group} x {group} groups"
            )
        check_bias(operands, out_channels)
        spatial = window_output_sizes(sizes, kernel, strides, dilations, pads, auto_pad)
        return [
            tensor_type(
                x.element_type, join_data_shape(layout, batch, out_channels, spatial)
            )
        ]


def transposed_pads_and_sizes(
    sizes: list[int],
    kernel: list[int],
    strides: list[int],
    dilations: list[int],
    pads: tuple[int, ...] | None,
    auto_pad: str,
    output_padding: list[int],
    output_shape: list[int] | None,
) -> tuple[list[int] | None, list[int]]:
    """ONNX ConvTranspose's explicit [begin..., end...] pads (None when a size is
    unknown) and spatial output sizes.

    The full output is stride * (in - 1) + output_padding + dilation * (k - 1) + 1;
    pads crop it (negative ones extend it with zeros). `output_shape` or SAME_*
    auto_pad (output = in * stride, at most the full output) fix the output
    instead, and the crop is split (more at the end for SAME_UPPER).
    """
    n = len(sizes)
    full = [
        DYN if i == DYN else s * (i - 1) + p + d * (k - 1) + 1
        for i, k, s, d, p in zip(sizes, kernel, strides, dilations, output_padding)
    ]
    if output_shape is None and auto_pad in ("NOTSET", "VALID"):
        explicit = list(pads) if pads and auto_pad == "NOTSET" else [0] * (2 * n)
        out = [
            DYN if f == DYN else f - explicit[i] - explicit[i + n]
            for i, f in enumerate(full)
        ]
        if any(o != DYN and o < 1 for o in out):
            raise VerifyException(f"pads {explicit} leave an empty output")
        return explicit, out
    if output_shape is not None:
        out = list(output_shape)
    else:
        # in * stride, but never beyond the full output: a kernel smaller than
        # the stride leaves no pad to crop (onnxruntime and onnx's inference)
        out = [
            DYN if i == DYN else i * s if f == DYN else min(i * s, f)
            for i, s, f in zip(sizes, strides, full)
        ]
    if DYN in full:
        return None, out
    totals = [f - o for f, o in zip(full, out)]
    if any(-t >= s for t, s in zip(totals, strides)):
        raise VerifyException(
            f"output_shape {out} exceeds the full transposed output {full} by a stride or more"
        )
    large = [t - t // 2 for t in totals]
    small = [t // 2 for t in totals]
    if auto_pad == "SAME_UPPER":
        return small + large, out
    if auto_pad == "NOTSET":
        # an output_shape beyond the full output adds zeros at the end, as
        # output_padding does (onnx's reference and onnxruntime agree)
        large = [0 if t < 0 else p for t, p in zip(totals, large)]
        small = [t if t < 0 else p for t, p in zip(totals, small)]
    return large + small, out


@irdl_op_definition
class ConvTransposeOp(ConvolutionBase):
    """N-D transposed convolution (the gradient of `nn.conv` by its input), with groups.

    `data_layout` is NCHW with filter IOHW (ONNX: C_in x C_out/group x k...) or
    NHWC with filter HWOI (TensorFlow's Conv2DBackpropInput: k... x C_out/group x C_in).
    Pads crop the full output; `output_shape` (spatial dims) or SAME_* `auto_pad`
    set the output size and derive the pads.
    """

    name = "nn.conv_transpose"
    output_padding = opt_prop_def(DenseArrayBase)
    output_shape = opt_prop_def(DenseArrayBase)

    @classmethod
    def transpose_props(cls, props, spatial_rank: int):
        """Window props plus output_padding and output_shape, checked."""
        strides, dilations, pads, auto_pad = cls.window_props(props, spatial_rank)
        output_padding = list(int_list(props, "output_padding") or (0,) * spatial_rank)
        output_shape = int_list(props, "output_shape")
        if len(output_padding) != spatial_rank or any(p < 0 for p in output_padding):
            raise VerifyException(
                f"output_padding needs {spatial_rank} non-negative values"
            )
        if output_shape is not None and (
            len(output_shape) != spatial_rank or any(s < 1 for s in output_shape)
        ):
            raise VerifyException(
                f"output_shape needs {spatial_rank} positive values (the spatial dims)"
            )
        return strides, dilations, pads, auto_pad, output_padding, output_shape

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        layout = str_value(props, "data_layout", CHANNELS_FIRST)
        check_layout(layout)
        x, w = ranked(operands[0]), ranked(operands[1])
        if x is None or w is None:
            return None
        x_shape, w_shape = x.get_shape(), w.get_shape()
        check_conv_ranks(cls.name, x_shape, w_shape)
        batch, channels, sizes = split_data_shape(layout, x_shape)
        # IOHW and HWOI split like OIHW and HWIO, with the channel roles swapped.
        in_channels, out_per_group, kernel = split_filter_shape(layout, w_shape)
        group = int_value(props, "group", 1)
        strides, dilations, pads, auto_pad, output_padding, output_shape = (
            cls.transpose_props(props, len(sizes))
        )
        if group < 1 or (in_channels != DYN and in_channels % group):
            raise VerifyException(
                f"group {group} does not divide the filter's {in_channels} input channels"
            )
        if DYN not in (channels, in_channels) and channels != in_channels:
            raise VerifyException(
                f"input has {channels} channels, filter expects {in_channels}"
            )
        out_channels = DYN if out_per_group == DYN else out_per_group * group
        check_bias(operands, out_channels)
        _, spatial = transposed_pads_and_sizes(
            sizes,
            kernel,
            strides,
            dilations,
            pads,
            auto_pad,
            output_padding,
            output_shape,
        )
        return [
            tensor_type(
                x.element_type, join_data_shape(layout, batch, out_channels, spatial)
            )
        ]
