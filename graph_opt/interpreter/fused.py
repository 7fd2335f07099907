"""Reference implementations of the fused ops: the unfused op's implementation, then the activation."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.fused import FusedActivation, FusedConvOp, FusedMatMulOp
from graph_opt.interpreter.conv import ConvFunctions
from graph_opt.interpreter.elementwise import gelu, hard_sigmoid, silu

_CONV = ConvFunctions()

ACTIVATIONS: dict[str, Callable[..., np.ndarray]] = {
    "none": lambda x: x,
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "clip": lambda x, low, high: np.clip(x, low, high),
    "leaky_relu": lambda x, alpha: np.where(x >= 0, x, x * x.dtype.type(alpha)),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh,
    "hard_sigmoid": hard_sigmoid,
    "hard_swish": lambda x: x * hard_sigmoid(x, 1 / 6, 0.5),
    "silu": silu,
    "gelu": gelu,
    "gelu_tanh": lambda x: gelu(x, "tanh"),
}
"""Each fused activation as a function of the unfused result and the op's `activation_params`."""


def apply_activation(x: np.ndarray, op: FusedActivation) -> np.ndarray:
    """The fused op's activation applied to its unfused result."""
    out = ACTIVATIONS[op.activation_name](x, *op.activation_values)
    return np.asarray(out).astype(x.dtype, copy=False)


@register_impls
class FusedFunctions(InterpreterFunctions):
    @impl(FusedConvOp)
    def run_fused_conv(self, interpreter: Interpreter, op: FusedConvOp, args):
        (out,) = _CONV.run_conv(interpreter, op, args).values
        return (apply_activation(out, op),)

    @impl(FusedMatMulOp)
    def run_fused_matmul(self, interpreter: Interpreter, op: FusedMatMulOp, args):
        lhs, rhs, *bias = args
        out = np.matmul(lhs, rhs)
        if bias:
            out = out + bias[0]
        return (apply_activation(np.asarray(out).astype(lhs.dtype, copy=False), op),)
