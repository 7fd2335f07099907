"""Reference implementations of range, one_hot, top_k, gather_nd and gather_elements."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn import index_ops as ix
from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.dtypes import is_float_dtype
from graph_opt.interpreter.limits import check_size


def one_hot(indices, values, depth: int, axis: int, wrap_negative: bool) -> np.ndarray:
    indices = indices.astype(np.int64)
    if wrap_negative:
        indices = np.where(indices < 0, indices + depth, indices)
    hot = np.arange(depth) == indices[..., None]
    off, on = values
    return np.moveaxis(np.where(hot, on, off).astype(values.dtype), -1, axis)


def top_k(x: np.ndarray, k: int, axis: int, largest: bool):
    """Stable order: among equal values the lower index comes first. NaN is
    the largest value (onnxruntime, TensorFlow): first when `largest`, last
    otherwise."""
    keys = x.astype(np.float64) if x.dtype.kind in "ub" else x
    order = np.argsort(-keys if largest else keys, axis=axis, kind="stable")
    if largest and is_float_dtype(x.dtype):  # argsort puts NaN last: move it first
        numbers = ~np.isnan(np.take_along_axis(keys, order, axis=axis))
        order = np.take_along_axis(order, np.argsort(numbers, axis, "stable"), axis)
    indices = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, indices, axis=axis), indices.astype(np.int64)


def gather_nd(data: np.ndarray, indices: np.ndarray, batch: int) -> np.ndarray:
    if batch == 0:
        return data[tuple(np.moveaxis(indices, -1, 0))]
    batch_shape = data.shape[:batch]
    flat_data = data.reshape(-1, *data.shape[batch:])
    flat_indices = indices.reshape(-1, *indices.shape[batch:])
    parts = [gather_nd(d, i, 0) for d, i in zip(flat_data, flat_indices)]
    return np.stack(parts).reshape(*batch_shape, *parts[0].shape)


def gather_elements(data: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    """ONNX's GatherElements; indices may be smaller than data off the axis."""
    window = tuple(
        slice(None) if k == axis else slice(0, n) for k, n in enumerate(indices.shape)
    )
    indices = np.where(indices < 0, indices + data.shape[axis], indices)
    return np.take_along_axis(data[window], indices, axis=axis)


@register_impls
class IndexFunctions(InterpreterFunctions):
    @impl(ix.RangeOp)
    def run_range(self, interpreter: Interpreter, op: ix.RangeOp, args):
        start, limit, delta = (a.item() for a in args)
        count = ix.range_length(start, limit, delta)
        dtype = args[0].dtype
        check_size(op, [count], dtype)
        if op.accumulate is not None:  # start + delta + delta ..., in the type
            steps = np.full(count, delta, dtype)
            steps[:1] = start
            return (np.cumsum(steps, dtype=dtype),)
        return (args[0] + np.arange(count, dtype=dtype) * args[2],)

    @impl(ix.OneHotOp)
    def run_one_hot(self, interpreter: Interpreter, op: ix.OneHotOp, args):
        indices, values = args
        axis = int_value(op.properties, "axis", -1)
        axis = axis if axis >= 0 else axis + indices.ndim + 1
        wrap = bool(int_value(op.properties, "wrap_negative", 0))
        check_size(op, [indices.size, op.depth.value.data], values.dtype)
        return (one_hot(indices, values, op.depth.value.data, axis, wrap),)

    @impl(ix.TopKOp)
    def run_top_k(self, interpreter: Interpreter, op: ix.TopKOp, args):
        (x,) = args
        axis = int_value(op.properties, "axis", -1) % x.ndim
        largest = bool(int_value(op.properties, "largest", 1))
        return top_k(x, op.k.value.data, axis, largest)

    @impl(ix.GatherNdOp)
    def run_gather_nd(self, interpreter: Interpreter, op: ix.GatherNdOp, args):
        data, indices = args
        return (gather_nd(data, indices, int_value(op.properties, "batch_dims", 0)),)

    @impl(ix.GatherElementsOp)
    def run_gather_elements(
        self, interpreter: Interpreter, op: ix.GatherElementsOp, args
    ):
        data, indices = args
        axis = int_value(op.properties, "axis", 0) % data.ndim
        return (gather_elements(data, indices, axis),)
