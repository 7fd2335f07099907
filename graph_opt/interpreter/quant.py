"""Reference implementation of fake quantization."""

from __future__ import annotations

from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.quantization.fake_quant_math import fake_quant


@register_impls
class QuantFunctions(InterpreterFunctions):
    @impl(FakeQuantOp)
    def run_fake_quant(self, interpreter: Interpreter, op: FakeQuantOp, args):
        (x,) = args
        axis = None if op.axis is None else op.axis.value.data % x.ndim
        out = fake_quant(x, op.mins, op.maxs, op.bits, op.is_narrow, axis)
        return (out.astype(x.dtype),)
