"""Reference implementations of reductions."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn import reduce as r


def _reduction(fn):
    def run(self, interpreter: Interpreter, op: r.ReduceOp, args):
        (x,) = args
        axes = r.reduced_axes(op.properties, x.ndim)
        if not axes:
            return (x,)
        out = fn(x, axis=axes, keepdims=op.keeps_dims)
        return (np.asarray(out).astype(x.dtype, copy=False),)

    return run


@register_impls
class ReduceFunctions(InterpreterFunctions):
    run_reduce_mean = impl(r.ReduceMeanOp)(_reduction(np.mean))
    run_reduce_sum = impl(r.ReduceSumOp)(_reduction(np.sum))
    run_reduce_max = impl(r.ReduceMaxOp)(_reduction(np.max))
    run_reduce_min = impl(r.ReduceMinOp)(_reduction(np.min))
