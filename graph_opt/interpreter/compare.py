"""Reference implementations of comparisons, logical ops, select and nonzero."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn import compare as c


def _predicate(fn):
    def run(self, interpreter: Interpreter, op, args):
        return (np.asarray(fn(*args), dtype=np.bool_),)

    return run


@register_impls
class CompareFunctions(InterpreterFunctions):
    run_equal = impl(c.EqualOp)(_predicate(np.equal))
    run_not_equal = impl(c.NotEqualOp)(_predicate(np.not_equal))
    run_greater = impl(c.GreaterOp)(_predicate(np.greater))
    run_greater_equal = impl(c.GreaterEqualOp)(_predicate(np.greater_equal))
    run_less = impl(c.LessOp)(_predicate(np.less))
    run_less_equal = impl(c.LessEqualOp)(_predicate(np.less_equal))
    run_logical_and = impl(c.LogicalAndOp)(_predicate(np.logical_and))
    run_logical_or = impl(c.LogicalOrOp)(_predicate(np.logical_or))
    run_logical_xor = impl(c.LogicalXorOp)(_predicate(np.logical_xor))
    run_logical_not = impl(c.LogicalNotOp)(_predicate(np.logical_not))

    @impl(c.SelectOp)
    def run_select(self, interpreter: Interpreter, op: c.SelectOp, args):
        condition, on_true, on_false = args
        return (np.where(condition, on_true, on_false).astype(on_true.dtype),)

    @impl(c.NonZeroOp)
    def run_nonzero(self, interpreter: Interpreter, op: c.NonZeroOp, args):
        (x,) = args
        return (np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1),)
