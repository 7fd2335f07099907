"""The gradients of max and average pooling (TensorFlow's MaxPoolGrad and
AvgPoolGrad): the gradient of a pooling's output spread back over its input."""

from __future__ import annotations

from abc import ABC
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, StringAttr
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

from graph_opt.dialects.nn.base import GENERIC_FORMAT, NNOperation, int_list
from graph_opt.dialects.nn.conv import window_output_sizes
from graph_opt.dialects.nn.layout import (
    HasDataLayout,
    join_data_shape,
    split_data_shape,
)
from graph_opt.dialects.nn.pool import PoolWindow, data_rank_and_layout
from graph_opt.dialects.nn.shapes import DYN, ranked, tensor_type


class PoolGradOp(NNOperation, PoolWindow, HasDataLayout, ABC):
    """The gradient of a pooling by its input, from the gradient of its output;
    window properties are the pooling's (no dilations, no ceil_mode)."""

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    input_grad = result_def()
    kernel_shape = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    auto_pad = opt_prop_def(StringAttr)
    data_layout = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def check_output_grad(
        cls, layout: str, input_shape: Sequence[int], output_grad, props
    ) -> None:
        """The output gradient must have the shape the pooling of an input of
        `input_shape` gives."""
        batch, channels, sizes = split_data_shape(layout, input_shape)
        kernel, strides, dilations, pads, auto_pad, _ = cls.pool_props(
            props, len(sizes)
        )
        spatial = window_output_sizes(
            list(sizes), kernel, strides, dilations, pads, auto_pad, False
        )
        pooled = join_data_shape(layout, batch, channels, spatial)
        grad = ranked(output_grad)
        if grad is None:
            return
        shape = grad.get_shape()
        if len(shape) != len(pooled) or any(
            DYN not in (g, p) and g != p for g, p in zip(shape, pooled)
        ):
            raise VerifyException(
                f"output gradient {list(shape)} is not the pooled shape {list(pooled)}"
            )


@irdl_op_definition
class MaxPoolGradOp(PoolGradOp):
    """Each output gradient added to the input position its window's maximum
    came from: the first maximum in row-major window order where a window
    holds ties, as TensorFlow's CPU kernel (padding never wins; a NaN wins
    only as its window's first value)."""

    name = "nn.max_pool_grad"
    input = operand_def()
    output_grad = operand_def()

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x, output_grad = operands
        layout, x_type = data_rank_and_layout(cls.name, [x], props)
        if x_type is None:
            return None
        cls.check_output_grad(layout, x_type.get_shape(), output_grad, props)
        return [x.type]


@irdl_op_definition
class AvgPoolGradOp(PoolGradOp):
    """Each output gradient spread evenly over its window's input positions,
    padding left out of the count (TensorFlow's AvgPool), into an input of
    shape `input_shape`."""

    name = "nn.avg_pool_grad"
    output_grad = operand_def()
    input_shape = prop_def(DenseArrayBase)

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        shape = list(int_list(props, "input_shape") or ())
        if not 3 <= len(shape) <= 5 or min(shape) < 0:
            raise VerifyException(f"input_shape must be 3 to 5 sizes, got {shape}")
        layout, _ = data_rank_and_layout(cls.name, [], props)
        cls.check_output_grad(layout, shape, operands[0], props)
        element = operands[0].type.element_type  # type: ignore[attr-defined]
        return [tensor_type(element, shape)]


POOL_GRAD_OPS = [MaxPoolGradOp, AvgPoolGradOp]
