"""Normalizations: inference batch norm."""

from __future__ import annotations

from xdsl.dialects.builtin import FloatAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import GENERIC_FORMAT, NNOperation, str_value
from graph_opt.dialects.nn.layout import CHANNELS_FIRST, channel_axis, check_layout
from graph_opt.dialects.nn.shapes import DYN, ranked


@irdl_op_definition
class BatchNormOp(NNOperation):
    """Inference batch norm: scale * (x - mean) / sqrt(var + epsilon) + bias.

    The parameters are 1-D over the channel axis of `data_layout` (axis 1 for
    NCHW, the last axis for NHWC).
    """

    name = "nn.batch_norm"
    input = operand_def()
    scale = operand_def()
    bias = operand_def()
    mean = operand_def()
    variance = operand_def()
    output = result_def()
    epsilon = opt_prop_def(FloatAttr, default_value=FloatAttr(1e-5, 32))
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
        x = ranked(operands[0])
        if x is None:
            return [operands[0].type]
        shape = x.get_shape()
        if len(shape) < 2:
            raise VerifyException(f"batch_norm input needs rank >= 2, got {len(shape)}")
        channels = shape[channel_axis(layout, len(shape))]
        for name, param in zip(("scale", "bias", "mean", "variance"), operands[1:]):
            p = ranked(param)
            if p is None:
                continue
            if (
                len(p.get_shape()) != 1
                or DYN not in (channels, p.get_shape()[0])
                and p.get_shape()[0] != channels
            ):
                raise VerifyException(
                    f"{name} must have shape [{channels}], got {list(p.get_shape())}"
                )
        return [x]
