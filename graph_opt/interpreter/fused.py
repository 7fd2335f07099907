"""Reference implementations of the fused ops: the unfused op's implementation, then the activation."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.fused import FusedActivation, FusedConvOp, FusedMatMulOp
from graph_opt.interpreter.conv import ConvFunctions

_CONV = ConvFunctions()


def apply_activation(x: np.ndarray, op: FusedActivation) -> np.ndarray:
    """The fused op's activation applied to its unfused result."""
    name, params = op.activation_name, op.activation_values
    if name == "relu":
        out = np.maximum(x, 0)
    elif name == "relu6":
        out = np.clip(x, 0, 6)
    elif name == "clip":
        out = np.clip(x, params[0], params[1])
    elif name == "leaky_relu":
        out = np.where(x >= 0, x, x * x.dtype.type(params[0]))
    elif name == "sigmoid":
        out = 1 / (1 + np.exp(-x))
    elif name == "tanh":
        out = np.tanh(x)
    else:
        out = x
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
