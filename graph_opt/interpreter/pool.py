"""Reference implementations of pooling (N-D, any layout)."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.conv import resolve_pads, window_output_sizes
from graph_opt.dialects.nn.dtypes import is_float_dtype
from graph_opt.dialects.nn.layout import CHANNELS_LAST
from graph_opt.dialects.nn.pool import AvgPoolOp, GlobalAvgPoolOp, MaxPoolOp, PoolOp
from graph_opt.interpreter.conv import (
    pad_spatial,
    sliding_windows,
    to_channels_first,
    to_channels_last,
)


def lowest(dtype: np.dtype):
    return -np.inf if is_float_dtype(dtype) else np.iinfo(dtype).min


class PoolGeometry:
    """Where the windows of a pooling op fall on NC... data of a given shape."""

    def __init__(self, op: PoolOp, spatial: tuple[int, ...]):
        n = len(spatial)
        kernel, strides, dilations, pads, auto_pad, ceil = op.pool_props(
            op.properties, n
        )
        self.kernel, self.strides, self.dilations = kernel, strides, dilations
        self.pads = resolve_pads(
            auto_pad, pads, list(spatial), kernel, strides, dilations
        )
        self.out = window_output_sizes(
            list(spatial), kernel, strides, dilations, pads, auto_pad, ceil
        )
        # ceil_mode: the last windows may run past the end padding.
        needed = [
            (o - 1) * s + d * (k - 1) + 1
            for o, s, d, k in zip(self.out, strides, dilations, kernel)
        ]
        self.overrun = [
            max(0, need - (size + self.pads[i] + self.pads[i + n]))
            for i, (need, size) in enumerate(zip(needed, spatial))
        ]

    def windows(self, x: np.ndarray, pad_fill, overrun_fill) -> np.ndarray:
        """N, C, out..., k... windows of `x` padded by `pad_fill`, then `overrun_fill`."""
        n = x.ndim - 2
        padded = pad_spatial(x, self.pads[:n], self.pads[n:], pad_fill)
        padded = pad_spatial(padded, [0] * n, self.overrun, overrun_fill)
        windows = sliding_windows(padded, self.kernel, self.strides, self.dilations)
        return windows[(slice(None), slice(None), *(slice(o) for o in self.out))]


def channels_first_call(op, x: np.ndarray, fn) -> np.ndarray:
    """Apply `fn` (NC... -> NC...) to data in `op`'s layout."""
    if op.layout != CHANNELS_LAST:
        return fn(x)
    return np.ascontiguousarray(to_channels_last(fn(to_channels_first(x))))


def max_pool_nchw(op: MaxPoolOp, x: np.ndarray) -> np.ndarray:
    geometry = PoolGeometry(op, x.shape[2:])
    low = lowest(x.dtype)
    windows = geometry.windows(x, low, low)
    out = windows.max(axis=tuple(range(-len(geometry.kernel), 0)))
    if x.dtype == np.float32:  # an all -inf window gives the lowest finite value
        out = np.maximum(out, np.finfo(x.dtype).min)  # (onnxruntime's float32
    return out  # kernel, TensorFlow's; onnxruntime's float16 and float64 give -inf)


def avg_pool_nchw(op: AvgPoolOp, x: np.ndarray) -> np.ndarray:
    geometry = PoolGeometry(op, x.shape[2:])
    window_axes = tuple(range(-len(geometry.kernel), 0))
    sums = geometry.windows(x, 0, 0).sum(axis=window_axes, dtype=np.float64)
    include_pad = bool(int_value(op.properties, "count_include_pad", 0))
    ones = np.ones((1, 1, *x.shape[2:]))
    counts = geometry.windows(ones, 1 if include_pad else 0, 0).sum(axis=window_axes)
    return (sums / counts).astype(x.dtype)


@register_impls
class PoolFunctions(InterpreterFunctions):
    @impl(MaxPoolOp)
    def run_max_pool(self, interpreter: Interpreter, op: MaxPoolOp, args):
        return (channels_first_call(op, args[0], lambda x: max_pool_nchw(op, x)),)

    @impl(AvgPoolOp)
    def run_avg_pool(self, interpreter: Interpreter, op: AvgPoolOp, args):
        return (channels_first_call(op, args[0], lambda x: avg_pool_nchw(op, x)),)

    @impl(GlobalAvgPoolOp)
    def run_global_avg_pool(self, interpreter: Interpreter, op: GlobalAvgPoolOp, args):
        def mean(x: np.ndarray) -> np.ndarray:
            spatial = tuple(range(2, x.ndim))
            return x.mean(axis=spatial, keepdims=True, dtype=np.float64).astype(x.dtype)

        return (channels_first_call(op, args[0], mean),)
