"""Reference implementations of reductions."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn import reduce as r
from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.dtypes import float_info, is_float_dtype, numpy_dtype


def _reduction(fn):
    def run(self, interpreter: Interpreter, op: r.ReduceOp, args):
        (x,) = args
        axes = r.reduced_axes(op.properties, x.ndim)
        if not axes:
            return (x,)
        out = fn(x, axis=axes, keepdims=op.keeps_dims)
        return (np.asarray(out).astype(x.dtype, copy=False),)

    return run


def arg_extreme(
    x: np.ndarray, axis: int, largest: bool, last: bool, scan_from_first: bool
) -> np.ndarray:
    """nn.argmax / nn.argmin along `axis` (kept as size 1): NaN never wins; the
    scan starts from the type's lowest (highest) finite value, where nothing
    beyond it gives 0 (TensorFlow), or from the first element, whose NaN then
    wins (`scan_from_first`, onnxruntime)."""
    if last:
        x = np.flip(x, axis)
    if is_float_dtype(x.dtype):
        if scan_from_first:
            candidates = ~np.isnan(x)
        else:
            limit = float_info(x.dtype).max
            candidates = x > -limit if largest else x < limit
        best = (np.fmax if largest else np.fmin).reduce(
            np.where(candidates, x, np.nan), axis=axis, keepdims=True
        )
        hits = candidates & (x == best)
    else:
        best = (np.max if largest else np.min)(x, axis=axis, keepdims=True)
        hits = x == best
    index = np.argmax(hits, axis=axis, keepdims=True)
    if last:
        index = x.shape[axis] - 1 - index
    found = hits.any(axis=axis, keepdims=True)
    if scan_from_first and is_float_dtype(x.dtype):
        first = np.take(np.flip(x, axis) if last else x, [0], axis=axis)
        found &= ~np.isnan(first)
    return np.where(found, index, 0)


def _arg_reduction(largest: bool):
    def run(self, interpreter: Interpreter, op: r.ArgReduceOp, args):
        (x,) = args
        axis = int_value(op.properties, "axis", 0) % x.ndim
        last = bool(int_value(op.properties, "select_last_index", 0))
        scan_from_first = op.scan_from_first is not None
        index = arg_extreme(x, axis, largest, last, scan_from_first)
        if not op.keeps_dims:
            index = np.squeeze(index, axis)
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
    """Floats narrower than float32 (float16, bfloat16, float8) are summed in
    float32 and each sum rounded, as onnxruntime does: in float16 a running sum
    of ones stops growing at 2048."""
    narrow_float = is_float_dtype(dtype) and dtype.itemsize < 4
    return np.dtype(np.float32) if narrow_float else dtype


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
