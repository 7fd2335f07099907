"""Pooling over 1-D, 2-D and 3-D data, channels-first (ONNX) or channels-last (TensorFlow)."""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import (
    GENERIC_FORMAT,
    NNOperation,
    check_flag,
    int_list,
    str_value,
)
from graph_opt.dialects.nn.conv import WindowAttributes, window_output_sizes
from graph_opt.dialects.nn.layout import (
    CHANNELS_FIRST,
    HasDataLayout,
    check_layout,
    join_data_shape,
    split_data_shape,
)
from graph_opt.dialects.nn.shapes import ranked, tensor_type


def data_rank_and_layout(
    op_name: str, operands, props
) -> tuple[str, TensorType | None]:
    layout = str_value(props, "data_layout", CHANNELS_FIRST)
    check_layout(layout)
    x = ranked(operands[0]) if operands else None
    if x is not None and not 3 <= len(x.get_shape()) <= 5:
        raise VerifyException(
            f"{op_name} needs an input of rank 3 to 5, got {len(x.get_shape())}"
        )
    return layout, x


class PoolWindow(WindowAttributes):
    """The window properties of pooling ops and of their gradients."""

    @classmethod
    def pool_props(cls, props, spatial_rank: int):
        """(kernel, strides, dilations, pads, auto_pad, ceil), checked."""
        kernel = int_list(props, "kernel_shape")
        if kernel is None or len(kernel) != spatial_rank or min(kernel) < 1:
            raise VerifyException(
                f"kernel_shape needs {spatial_rank} positive values, got {kernel}"
            )
        strides, dilations, pads, auto_pad = cls.window_props(props, spatial_rank)
        windows = [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]
        if pads is not None and any(
            p < 0 or p >= windows[i % spatial_rank] for i, p in enumerate(pads)
        ):
            raise VerifyException(
                f"pads {list(pads)} must be non-negative and smaller than the window {windows}"
            )
        ceil = check_flag(props, "ceil_mode")
        return list(kernel), strides, dilations, pads, auto_pad, ceil


class PoolOp(NNOperation, PoolWindow, HasDataLayout, ABC):
    """A sliding-window reduction over the spatial dims of `data_layout` (NCHW or NHWC).

    Pads are [begin..., end...] per spatial dim, or derived from `auto_pad`;
    `ceil_mode` rounds the output size up (a window may run into the end padding).
    """

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    input = operand_def()
    output = result_def()
    kernel_shape = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    auto_pad = opt_prop_def(StringAttr)
    ceil_mode = opt_prop_def(IntegerAttr)
    data_layout = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        layout, x = data_rank_and_layout(cls.name, operands, props)
        if x is None:
            return None
        batch, channels, sizes = split_data_shape(layout, x.get_shape())
        kernel, strides, dilations, pads, auto_pad, ceil = cls.pool_props(
            props, len(sizes)
        )
        cls.check_extra_props(props)
        spatial = window_output_sizes(
            sizes, kernel, strides, dilations, pads, auto_pad, ceil
        )
        return [
            tensor_type(
                x.element_type, join_data_shape(layout, batch, channels, spatial)
            )
        ]

    @classmethod
    def check_extra_props(cls, props) -> None:
        """Checks of the properties a subclass adds."""


@irdl_op_definition
class MaxPoolOp(PoolOp):
    """Maximum over each (optionally dilated) window; padding never wins."""

    name = "nn.max_pool"
    dilations = opt_prop_def(DenseArrayBase)


@irdl_op_definition
class AvgPoolOp(PoolOp):
    """Mean over each window; padded positions count only with `count_include_pad`."""

    name = "nn.avg_pool"
    count_include_pad = opt_prop_def(IntegerAttr)

    @classmethod
    def check_extra_props(cls, props) -> None:
        check_flag(props, "count_include_pad")


@irdl_op_definition
class GlobalAvgPoolOp(NNOperation, HasDataLayout):
    """Mean over all spatial dims, which stay as size 1."""

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    name = "nn.global_avg_pool"
    input = operand_def()
    output = result_def()
    data_layout = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        layout, x = data_rank_and_layout(cls.name, operands, props)
        if x is None:
            return None
        batch, channels, sizes = split_data_shape(layout, x.get_shape())
        shape = join_data_shape(layout, batch, channels, [1] * len(sizes))
        return [tensor_type(x.element_type, shape)]


POOL_OPS = [MaxPoolOp, AvgPoolOp, GlobalAvgPoolOp]
