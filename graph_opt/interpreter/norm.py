"""Reference implementations of normalization ops."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.layout import channel_axis
from graph_opt.dialects.nn.norm import BatchNormOp, LayerNormOp, SoftmaxOp


def channel_shape(rank: int, axis: int) -> tuple[int, ...]:
    """The shape that broadcasts a per-channel vector along `axis`."""
    return tuple(-1 if i == axis else 1 for i in range(rank))


@register_impls
class NormFunctions(InterpreterFunctions):
    @impl(BatchNormOp)
    def run_batch_norm(self, interpreter: Interpreter, op: BatchNormOp, args):
        x, scale, bias, mean, var = args
        shape = channel_shape(x.ndim, channel_axis(op.layout, x.ndim))
        eps = op.epsilon.value.data
        inv = scale / np.sqrt(var.astype(np.float64) + eps)
        out = (x - mean.reshape(shape)) * inv.reshape(shape) + bias.reshape(shape)
        return (out.astype(x.dtype),)

    @impl(LayerNormOp)
    def run_layer_norm(self, interpreter: Interpreter, op: LayerNormOp, args):
        x, scale, *bias = args
        axes = tuple(range(op.axis_value % x.ndim, x.ndim))
        wide = x.astype(np.float64)
        centered = wide - wide.mean(axis=axes, keepdims=True)
        variance = (centered * centered).mean(axis=axes, keepdims=True)
        out = centered / np.sqrt(variance + op.epsilon_value) * scale
        if bias:
            out = out + bias[0]
        return (out.astype(x.dtype),)

    @impl(SoftmaxOp)
    def run_softmax(self, interpreter: Interpreter, op: SoftmaxOp, args):
        (x,) = args
        axis = op.axis_value
        exp = np.exp(x.astype(np.float64) - x.max(axis=axis, keepdims=True))
        return ((exp / exp.sum(axis=axis, keepdims=True)).astype(x.dtype),)
