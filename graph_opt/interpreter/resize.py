"""Reference implementation of nn.resize (ONNX's Resize, one axis at a time)."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.base import int_list
from graph_opt.dialects.nn.resize import KEEP, ResizeOp


def source_coordinates(n_in: int, n_out: int, mode: str) -> np.ndarray:
    """Where each output position samples the input (ONNX's coordinate_transformation_mode)."""
    x = np.arange(n_out, dtype=np.float64)
    if mode == "align_corners":
        return x * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    if mode == "asymmetric":
        return x * n_in / n_out
    if mode == "pytorch_half_pixel" and n_out == 1:
        return np.zeros(n_out)
    return (x + 0.5) * n_in / n_out - 0.5


def rounded(x: np.ndarray, mode: str) -> np.ndarray:
    if mode == "floor":
        return np.floor(x)
    if mode == "ceil":
        return np.ceil(x)
    halves = x - np.floor(x) == 0.5
    tie = np.floor(x) if mode == "round_prefer_floor" else np.ceil(x)
    return np.where(halves, tie, np.round(x))


def resize(
    x: np.ndarray, sizes, mode: str, coordinates: str, nearest: str
) -> np.ndarray:
    out = x
    for axis, (n_in, n_out) in enumerate(zip(x.shape, sizes)):
        if n_out in (KEEP, n_in):
            continue
        source = source_coordinates(n_in, n_out, coordinates)
        if mode == "nearest":
            index = np.clip(rounded(source, nearest), 0, n_in - 1).astype(np.int64)
            out = np.take(out, index, axis=axis)
            continue
        source = np.clip(source, 0, n_in - 1)
        low = np.floor(source).astype(np.int64)
        high = np.minimum(low + 1, n_in - 1)
        shape = [-1] + [1] * (x.ndim - axis - 1)
        weight = (source - low).reshape(shape)
        below = np.take(out, low, axis=axis)
        mixed = below * (1 - weight) + np.take(out, high, axis=axis) * weight
        # at the last input the value itself, as onnxruntime: inf * 0 is no NaN
        out = np.where((low == high).reshape(shape), below, mixed)
    return out.astype(x.dtype)


@register_impls
class ResizeFunctions(InterpreterFunctions):
    @impl(ResizeOp)
    def run_resize(self, interpreter: Interpreter, op: ResizeOp, args):
        (x,) = args
        sizes = int_list(op.properties, "sizes")
        return (resize(x, sizes, op.resize_mode, op.coordinate_mode, op.rounding),)
