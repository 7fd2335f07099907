"""Ops of training graphs: batch norm with batch statistics, and the gradient
kernels that have no inference counterpart (TensorFlow's FusedBatchNorm with
is_training, FusedBatchNormGrad, ReluGrad, Conv2DBackpropFilter)."""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, StringAttr
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
    int_list,
    str_value,
)
from graph_opt.dialects.nn.conv import WindowAttributes
from graph_opt.dialects.nn.layout import (
    CHANNELS_FIRST,
    HasDataLayout,
    channel_axis,
    check_layout,
)
from graph_opt.dialects.nn.shapes import DYN, ranked, tensor_type


def _channel_vector(operands, props) -> Attribute | None:
    """The type of a per-channel vector of the data operand, None when unranked."""
    layout = str_value(props, "data_layout", CHANNELS_FIRST)
    check_layout(layout)
    x = ranked(operands[0])
    if x is None:
        return None
    shape = x.get_shape()
    if len(shape) < 2:
        raise VerifyException(f"batch norm data needs rank >= 2, got {len(shape)}")
    return tensor_type(x.element_type, [shape[channel_axis(layout, len(shape))]])


class TrainingBatchNormBase(NNOperation, HasDataLayout, ABC):
    """What the training-mode batch norm and its gradient share: per-channel
    statistics over the other axes of `data_layout`, and an epsilon."""

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    epsilon = opt_prop_def(FloatAttr, default_value=FloatAttr(1e-5, 32))
    data_layout = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT


@irdl_op_definition
class BatchNormTrainingOp(TrainingBatchNormBase):
    """Batch norm with the batch's statistics, as in training.

    `output` normalizes by the batch mean and (biased) variance over all axes
    but the channel axis. `batch_mean` and `batch_variance` (unbiased, n/(n-1))
    are the values to update moving statistics with; with an
    `exponential_avg_factor` f below 1 they are already averaged:
    (1 - f) * mean + f * batch value. `saved_mean` and `saved_variance` (biased)
    are what the gradient reads.
    """

    name = "nn.batch_norm_training"
    input = operand_def()
    scale = operand_def()
    bias = operand_def()
    mean = operand_def()
    variance = operand_def()
    output = result_def()
    batch_mean = result_def()
    batch_variance = result_def()
    saved_mean = result_def()
    saved_variance = result_def()
    exponential_avg_factor = opt_prop_def(FloatAttr, default_value=FloatAttr(1.0, 32))

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        vector = _channel_vector(operands, props)
        if vector is None:
            return None
        return [operands[0].type, *[vector] * 4]


@irdl_op_definition
class BatchNormGradOp(TrainingBatchNormBase):
    """The gradients of a training-mode batch norm by its input, scale and bias,
    from the output's gradient and the saved batch statistics."""

    name = "nn.batch_norm_grad"
    output_grad = operand_def()
    input = operand_def()
    scale = operand_def()
    saved_mean = operand_def()
    saved_variance = operand_def()
    input_grad = result_def()
    scale_grad = result_def()
    bias_grad = result_def()

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        vector = _channel_vector(operands[1:], props)
        if vector is None:
            return None
        return [operands[1].type, vector, vector]


@irdl_op_definition
class ReluGradOp(NNOperation):
    """`gradients` where `features` > 0, else 0: the gradient through a ReLU."""

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    name = "nn.relu_grad"
    gradients = operand_def()
    features = operand_def()
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        grads, features = (ranked(v) for v in operands)
        if grads is not None and features is not None:
            if grads.get_shape() != features.get_shape():
                raise VerifyException(
                    f"gradients {list(grads.get_shape())} and features {list(features.get_shape())} differ in shape"
                )
        return [operands[0].type]


@irdl_op_definition
class ConvFilterGradOp(NNOperation, WindowAttributes, HasDataLayout):
    """The gradient of a 2-D nn.conv (group 1) by its filter, from its input and
    the gradient of its output; the filter is HWIO with NHWC data, OIHW with
    NCHW, of shape `filter_shape`. Window properties are the conv's."""

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    name = "nn.conv_filter_grad"
    input = operand_def()
    output_grad = operand_def()
    output = result_def()
    filter_shape = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    auto_pad = opt_prop_def(StringAttr)
    data_layout = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        check_layout(str_value(props, "data_layout", CHANNELS_FIRST))
        shape = int_list(props, "filter_shape") or ()
        if len(shape) != 4 or any(d < 1 and d != DYN for d in shape):
            raise VerifyException(f"filter_shape must be 4 sizes, got {list(shape)}")
        cls.window_props(props, 2)
        x = ranked(operands[0])
        element = x.element_type if x is not None else operands[0].type.element_type  # type: ignore[attr-defined]
        return [tensor_type(element, shape)]


TRAINING_OPS = [BatchNormTrainingOp, BatchNormGradOp, ReluGradOp, ConvFilterGradOp]
