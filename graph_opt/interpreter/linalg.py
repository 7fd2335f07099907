"""Reference implementations of matrix products."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.base import float_value, int_value
from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp


@register_impls
class LinalgFunctions(InterpreterFunctions):
    @impl(MatMulOp)
    def run_matmul(self, interpreter: Interpreter, op: MatMulOp, args):
        lhs, rhs = args
        return (np.matmul(lhs, rhs).astype(lhs.dtype, copy=False),)

    @impl(GemmOp)
    def run_gemm(self, interpreter: Interpreter, op: GemmOp, args):
        a, b, *c = args
        props = op.properties
        if int_value(props, "trans_a", 0):
            a = a.T
        if int_value(props, "trans_b", 0):
            b = b.T
        out = float_value(props, "alpha", 1.0) * (a @ b)
        if c:
            out = out + float_value(props, "beta", 1.0) * c[0]
        return (np.asarray(out).astype(a.dtype, copy=False),)
