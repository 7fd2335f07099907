"""Convolutions over 1-D, 2-D and 3-D data, channels-first (ONNX) or channels-last (TensorFlow)."""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, TensorType
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
    int_list,
    int_value,
    str_value,
)
from graph_opt.dialects.nn.layout import (
    CHANNELS_FIRST,
    check_layout,
    join_data_shape,
    split_data_shape,
    split_filter_shape,
)
from graph_opt.dialects.nn.shapes import DYN, ranked, window_output_size

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


class WindowAttributes:
    """Accessors for the window properties that conv and pooling ops share."""

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


@irdl_op_definition
class ConvOp(NNOperation, WindowAttributes):
    """N-D convolution with groups (depthwise when group == channels).

    `data_layout` is NCHW (filter OIHW) or NHWC (filter HWIO); pads are
    [begin..., end...] per spatial dim, or derived from `auto_pad`.
    """

    name = "nn.conv"
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

    @property
    def layout(self) -> str:
        return str_value(self.properties, "data_layout", CHANNELS_FIRST)

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        layout = str_value(props, "data_layout", CHANNELS_FIRST)
        check_layout(layout)
        x, w = ranked(operands[0]), ranked(operands[1])
        if x is None or w is None:
            return None
        x_shape, w_shape = x.get_shape(), w.get_shape()
        if len(x_shape) < 3 or len(x_shape) > 5 or len(w_shape) != len(x_shape):
            raise VerifyException(
                f"conv needs input and filter of equal rank 3 to 5, got {len(x_shape)} and {len(w_shape)}"
            )
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
        if len(operands) == 3:
            b = ranked(operands[2])
            if (
                b is not None
                and out_channels != DYN
                and b.get_shape() not in ((out_channels,), (DYN,))
            ):
                raise VerifyException(
                    f"bias must have shape [{out_channels}], got {list(b.get_shape())}"
                )
        explicit = resolve_pads(auto_pad, pads, sizes, kernel, strides, dilations)
        if explicit is None:
            spatial = [DYN] * len(sizes)
        elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            spatial = [-(-s // st) for s, st in zip(sizes, strides)]
        else:
            n = len(sizes)
            spatial = [
                window_output_size(s, k, st, explicit[i] + explicit[i + n], d)
                for i, (s, k, st, d) in enumerate(
                    zip(sizes, kernel, strides, dilations)
                )
            ]
        return [
            TensorType(
                x.element_type, join_data_shape(layout, batch, out_channels, spatial)
            )
        ]
