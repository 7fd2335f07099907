"""Reference implementations of reductions."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn import reduce as r
from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.dtypes import numpy_dtype


def _reduction(fn):
    def run(self, interpreter: Interpreter, op: r.ReduceOp, args):
        (x,) = args
        axes = r.reduced_axes(op.properties, x.ndim)
        if not axes:
            return (x,)
        out = fn(x, axis=axes, keepdims=op.keeps_dims)
        return (np.asarray(out).astype(x.dtype, copy=False),)

    return run


def first_extreme(x: np.ndarray, axis: int, keepdims: bool, largest: bool):
    """The index of the first largest (smallest) value along `axis`, NaN
    skipped; -1 where every value is NaN."""
    if x.dtype.kind != "f":
        fn = np.argmax if largest else np.argmin
        return fn(x, axis=axis, keepdims=keepdims)
    numbers = ~np.isnan(x)
    best = (np.fmax if largest else np.fmin).reduce(x, axis=axis, keepdims=True)
    index = np.argmax((x == best) & numbers, axis=axis, keepdims=keepdims)
    return np.where(numbers.any(axis=axis, keepdims=keepdims), index, -1)


def _arg_reduction(largest: bool):
    """ArgMax / ArgMin skipping NaN, and 0 where every value is NaN, as
    onnxruntime and TensorFlow do (numpy's argmax picks the first NaN)."""

    def run(self, interpreter: Interpreter, op: r.ArgReduceOp, args):
        (x,) = args
        axis = int_value(op.properties, "axis", 0) % x.ndim
        keep = op.keeps_dims
        if int_value(op.properties, "select_last_index", 0):
            last = x.shape[axis] - 1
            index = first_extreme(np.flip(x, axis), axis, keep, largest)
            index = np.where(index < 0, -1, last - index)
        else:
            index = first_extreme(x, axis, keep, largest)
        index = np.maximum(index, 0)
        return (np.asarray(index).astype(numpy_dtype(op.output.type.element_type)),)

    return run


def cumsum(x: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> np.ndarray:
    if reverse:
        x = np.flip(x, axis)
    sums = np.cumsum(x, axis=axis, dtype=_accumulator(x.dtype)).astype(x.dtype)
    if exclusive:  # shift by one along the axis, a zero first
        sums = np.concatenate(
            [np.zeros_like(np.take(sums, [0], axis)), np.delete(sums, -1, axis)], axis
        )
    return np.flip(sums, axis) if reverse else sums


def _accumulator(dtype: np.dtype) -> np.dtype:
    """Floats narrower than float32 (float16, and ml_dtypes' bfloat16, kind "V")
    are summed in float32 and each sum rounded, as onnxruntime does: in float16
    a running sum of ones stops growing at 2048."""
    narrow_float = dtype.kind == "f" and dtype.itemsize < 4
    return np.dtype(np.float32) if narrow_float or dtype.kind == "V" else dtype


@register_impls
class ReduceFunctions(InterpreterFunctions):
    run_reduce_mean = impl(r.ReduceMeanOp)(_reduction(np.mean))
    run_reduce_sum = impl(r.ReduceSumOp)(_reduction(np.sum))
    run_reduce_max = impl(r.ReduceMaxOp)(_reduction(np.max))
    run_reduce_min = impl(r.ReduceMinOp)(_reduction(np.min))
    run_reduce_prod = impl(r.ReduceProdOp)(_reduction(np.prod))
    run_reduce_any = impl(r.ReduceAnyOp)(_reduction(np.any))
    run_reduce_all = impl(r.ReduceAllOp)(_reduction(np.all))
    run_argmax = impl(r.ArgMaxOp)(_arg_reduction(largest=True))
    run_argmin = impl(r.ArgMinOp)(_arg_reduction(largest=False))

    @impl(r.CumSumOp)
    def run_cumsum(self, interpreter: Interpreter, op: r.CumSumOp, args):
        (x,) = args
        props = op.properties
        axis = int_value(props, "axis", 0) % x.ndim
        exclusive = bool(int_value(props, "exclusive", 0))
        return (cumsum(x, axis, exclusive, bool(int_value(props, "reverse", 0))),)
