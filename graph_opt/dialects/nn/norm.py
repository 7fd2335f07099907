"""Normalizations: inference batch norm, layer norm, softmax."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr
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
    float_value,
    int_value,
    str_value,
)
from graph_opt.dialects.nn.layout import (
    CHANNELS_FIRST,
    HasDataLayout,
    channel_axis,
    check_layout,
)
from graph_opt.dialects.nn.linalg import broadcasts_to
from graph_opt.dialects.nn.shapes import DYN, normalize_axis, ranked


@irdl_op_definition
class BatchNormOp(NNOperation, HasDataLayout):
    """Inference batch norm: scale * (x - mean) / sqrt(var + epsilon) + bias.

    The parameters are 1-D over the channel axis of `data_layout` (axis 1 for
    NCHW, the last axis for NHWC).
    """

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

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
            p_shape = p.get_shape()
            if (
                len(p_shape) != 1
                or DYN not in (channels, p_shape[0])
                and p_shape[0] != channels
            ):
                raise VerifyException(
                    f"{name} must have shape [{channels}], got {list(p_shape)}"
                )
        return [x]


@irdl_op_definition
class LayerNormOp(NNOperation):
    """(x - mean) / sqrt(var + epsilon) * scale + bias, with mean and variance over
    the dims from `axis` (default -1) to the last; scale and the optional bias
    broadcast to those dims."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"axis": -1, "epsilon": 1e-5}

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    name = "nn.layer_norm"
    input = operand_def()
    scale = operand_def()
    bias = opt_operand_def()
    output = result_def()
    axis = opt_prop_def(IntegerAttr)
    epsilon = opt_prop_def(FloatAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @property
    def axis_value(self) -> int:
        return int_value(self.properties, "axis", -1)

    @property
    def epsilon_value(self) -> float:
        return float_value(self.properties, "epsilon", 1e-5)

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is None:
            return [operands[0].type]
        shape = x.get_shape()
        axis = normalize_axis(int_value(props, "axis", -1), len(shape))
        normalized = shape[axis:]
        for name, param in zip(("scale", "bias"), operands[1:]):
            p = ranked(param)
            if p is not None and not broadcasts_to(p.get_shape(), normalized):
                raise VerifyException(
                    f"{name} of shape {list(p.get_shape())} does not broadcast to the normalized dims {list(normalized)}"
                )
        return [x]


@irdl_op_definition
class SoftmaxOp(NNOperation):
    """exp(x) / sum(exp(x)) along `axis` (default -1)."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"axis": -1}

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    name = "nn.softmax"
    input = operand_def()
    output = result_def()
    axis = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @property
    def axis_value(self) -> int:
        return int_value(self.properties, "axis", -1)

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is not None:
            normalize_axis(int_value(props, "axis", -1), len(x.get_shape()))
        return [operands[0].type]
