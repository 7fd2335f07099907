"""Reference implementations of the training ops of nn (batch statistics and
gradient kernels)."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.utils.exceptions import InterpretationError

from graph_opt.dialects.nn.base import float_value, int_list
from graph_opt.dialects.nn.conv import resolve_pads
from graph_opt.dialects.nn.layout import CHANNELS_LAST, channel_axis
from graph_opt.dialects.nn.training import (
    BatchNormGradOp,
    BatchNormTrainingOp,
    ConvFilterGradOp,
    ReluGradOp,
)
from graph_opt.interpreter.conv import pad_spatial, sliding_windows, to_channels_first
from graph_opt.interpreter.norm import channel_shape


def _statistics_axes(
    x: np.ndarray, layout: str
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(axes the statistics reduce, the shape that broadcasts a channel vector)."""
    axis = channel_axis(layout, x.ndim)
    return tuple(a for a in range(x.ndim) if a != axis), channel_shape(x.ndim, axis)


@register_impls
class TrainingFunctions(InterpreterFunctions):
    @impl(BatchNormTrainingOp)
    def run_batch_norm_training(self, interpreter: Interpreter, op, args):
        x, scale, bias, running_mean, running_var = args
        axes, shape = _statistics_axes(x, op.layout)
        wide = x.astype(np.float64)
        mean = wide.mean(axis=axes)
        variance = ((wide - mean.reshape(shape)) ** 2).mean(axis=axes)
        inv = scale / np.sqrt(variance + float_value(op.properties, "epsilon", 1e-5))
        out = (wide - mean.reshape(shape)) * inv.reshape(shape) + bias.reshape(shape)
        count = x.size // mean.size
        unbiased = variance * count / max(count - 1, 1)
        factor = float_value(op.properties, "exponential_avg_factor", 1.0)
        averaged_mean = (1 - factor) * running_mean + factor * mean
        averaged_var = (1 - factor) * running_var + factor * unbiased
        dtype = x.dtype
        return tuple(
            a.astype(dtype) for a in (out, averaged_mean, averaged_var, mean, variance)
        )

    @impl(BatchNormGradOp)
    def run_batch_norm_grad(self, interpreter: Interpreter, op, args):
        dy, x, scale, mean, variance = (a.astype(np.float64) for a in args)
        axes, shape = _statistics_axes(x, op.layout)
        inv = 1 / np.sqrt(variance + float_value(op.properties, "epsilon", 1e-5))
        normalized = (x - mean.reshape(shape)) * inv.reshape(shape)
        bias_grad = dy.sum(axis=axes)
        scale_grad = (dy * normalized).sum(axis=axes)
        count = x.size // mean.size
        input_grad = (scale * inv / count).reshape(shape) * (
            count * dy
            - bias_grad.reshape(shape)
            - normalized * scale_grad.reshape(shape)
        )
        dtype = args[1].dtype
        return tuple(a.astype(dtype) for a in (input_grad, scale_grad, bias_grad))

    @impl(ReluGradOp)
    def run_relu_grad(self, interpreter: Interpreter, op, args):
        gradients, features = args
        return (np.where(features > 0, gradients, 0).astype(gradients.dtype),)

    @impl(ConvFilterGradOp)
    def run_conv_filter_grad(self, interpreter: Interpreter, op, args):
        x, dy = args
        channels_last = op.layout == CHANNELS_LAST
        if channels_last:
            x, dy = to_channels_first(x), to_channels_first(dy)
        shape = int_list(op.properties, "filter_shape")
        kernel = list(shape[:2] if channels_last else shape[2:])
        strides, dilations, pads, auto_pad = ConvFilterGradOp.window_props(
            op.properties, 2
        )
        pads = resolve_pads(
            auto_pad, pads, list(x.shape[2:]), kernel, strides, dilations
        )
        windows = sliding_windows(
            pad_spatial(x, pads[:2], pads[2:]), kernel, strides, dilations
        )
        out_h, out_w = dy.shape[2:]
        if windows.shape[2:4] != (out_h, out_w):
            raise InterpretationError(
                f"output gradient of spatial size {[out_h, out_w]} does not match the conv's {list(windows.shape[2:4])}"
            )
        grad = np.einsum("ncxyuv,noxy->ocuv", windows, dy, optimize=True)
        if channels_last:
            grad = grad.transpose(2, 3, 1, 0)  # OIHW to HWIO
        return (np.ascontiguousarray(grad.astype(x.dtype)),)
