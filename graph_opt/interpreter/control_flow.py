"""Reference implementations of the control flow the frontends build: scf.if and
scf.while come from xDSL's scf interpreter; tensor.extract and tensor.cast on
numpy arrays are here."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import tensor
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls


@register_impls
class ControlFlowFunctions(InterpreterFunctions):
    @impl(tensor.ExtractOp)
    def run_extract(self, interpreter: Interpreter, op: tensor.ExtractOp, args):
        array, *indices = args
        return (np.asarray(array)[tuple(indices)].item(),)

    @impl(tensor.CastOp)
    def run_cast(self, interpreter: Interpreter, op: tensor.CastOp, args):
        return (args[0],)
