"""Reference implementation of fake quantization."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.quant_training import FakeQuantVarsGradOp, FakeQuantVarsOp
from graph_opt.quantization.fake_quant_math import fake_quant, fake_quant_gradient_masks


@register_impls
class QuantFunctions(InterpreterFunctions):
    @impl(FakeQuantOp)
    def run_fake_quant(self, interpreter: Interpreter, op: FakeQuantOp, args):
        (x,) = args
        axis = None if op.axis is None else op.axis.value.data % x.ndim
        out = fake_quant(x, op.mins, op.maxs, op.bits, op.is_narrow, axis)
        return (out.astype(x.dtype),)


def _scalar(value) -> np.ndarray:
    return np.asarray(value, np.float32).reshape(1)


@register_impls
class QuantTrainingFunctions(InterpreterFunctions):
    @impl(FakeQuantVarsOp)
    def run_fake_quant_vars(self, interpreter: Interpreter, op: FakeQuantVarsOp, args):
        x, low, high = args
        out = fake_quant(x, _scalar(low), _scalar(high), op.bits, op.is_narrow)
        return (out.reshape(x.shape).astype(x.dtype),)

    @impl(FakeQuantVarsGradOp)
    def run_fake_quant_vars_grad(
        self, interpreter: Interpreter, op: FakeQuantVarsGradOp, args
    ):
        gradient, x, low, high = args
        masks = fake_quant_gradient_masks(
            x, _scalar(low), _scalar(high), op.bits, op.is_narrow
        )
        inside = masks.inside.reshape(x.shape)
        return (np.where(inside, gradient, 0).astype(gradient.dtype),)
