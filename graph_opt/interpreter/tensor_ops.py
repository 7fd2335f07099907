"""Reference implementations of tensor ops: transpose, concat, split, slice, gather, pad, cast, dropout, tile."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn import tensor_ops as t
from graph_opt.dialects.nn.base import int_list, int_value
from graph_opt.dialects.nn.dtypes import is_float_dtype, numpy_dtype
from graph_opt.interpreter.limits import check_size

SATURATING_FLOAT8 = {
    np.dtype(d)
    for d in (
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e4m3fnuz,
        ml_dtypes.float8_e5m2,
        ml_dtypes.float8_e5m2fnuz,
    )
}
"""Targets of ONNX's saturating Cast."""


def through_int32(x: np.ndarray) -> np.ndarray:
    """Floats truncated to int32; NaN, infinities and values outside int32
    become its minimum (x86's conversion, which onnxruntime, numpy and
    TensorFlow all use), explicitly rather than by numpy's undefined cast.
    Narrow floats are widened first: float8 holds neither bound (2^31 in
    E4M3FN is NaN)."""
    if x.dtype.itemsize < 4:
        x = x.astype(np.float32)
    low = np.iinfo(np.int32).min
    with np.errstate(invalid="ignore"):
        inside = (x >= low) & (x < 2.0**31)
        return np.where(inside, np.trunc(np.where(inside, x, 0)), low).astype(np.int32)


def saturated(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Finite values clamped to the type's range; infinities too for E4M3FN
    (ONNX's Cast: infinities become the largest value only where the type has
    neither infinities nor a single NaN encoding)."""
    if not is_float_dtype(x.dtype):
        return x
    largest = float(ml_dtypes.finfo(dtype).max)
    clamped = np.clip(x, -largest, largest)
    if dtype == np.dtype(ml_dtypes.float8_e4m3fn):
        return clamped
    return np.where(np.isfinite(x), clamped, x)


def onnx_slice(x: np.ndarray, starts, ends, axes, steps) -> np.ndarray:
    index = [slice(None)] * x.ndim
    for axis, (start, end, step) in t.slice_axes(
        x.ndim, starts, ends, axes, steps
    ).items():
        start, end, _ = t.slice_bounds(x.shape[axis], start, end, step)
        index[axis] = slice(start, None if end < 0 else end, step)
    return x[tuple(index)]


def onnx_pad(x: np.ndarray, pads, mode: str, value: float) -> np.ndarray:
    """np.pad with ONNX's [begin..., end...] pads, where negative values crop."""
    rank = x.ndim
    begins, ends = pads[:rank], pads[rank:]
    crop = tuple(
        slice(max(0, -b), d - max(0, -e)) for d, b, e in zip(x.shape, begins, ends)
    )
    widths = [(max(0, b), max(0, e)) for b, e in zip(begins, ends)]
    x = x[crop]
    if mode == "constant":
        return np.pad(x, widths, constant_values=x.dtype.type(value))
    return np.pad(x, widths, mode=mode)


@register_impls
class TensorFunctions(InterpreterFunctions):
    @impl(t.TransposeOp)
    def run_transpose(self, interpreter: Interpreter, op: t.TransposeOp, args):
        (x,) = args
        return (np.transpose(x, t.TransposeOp.permutation(op.properties, x.ndim)),)

    @impl(t.ConcatOp)
    def run_concat(self, interpreter: Interpreter, op: t.ConcatOp, args):
        return (np.concatenate(args, axis=op.axis.value.data),)

    @impl(t.SplitOp)
    def run_split(self, interpreter: Interpreter, op: t.SplitOp, args):
        (x,) = args
        cuts = np.cumsum(int_list(op.properties, "split"))[:-1]
        return tuple(np.split(x, cuts, axis=int_value(op.properties, "axis", 0)))

    @impl(t.SliceOp)
    def run_slice(self, interpreter: Interpreter, op: t.SliceOp, args):
        return (onnx_slice(*args),)

    @impl(t.GatherOp)
    def run_gather(self, interpreter: Interpreter, op: t.GatherOp, args):
        x, indices = args
        axis = int_value(op.properties, "axis", 0) % x.ndim
        indices = np.where(indices < 0, indices + x.shape[axis], indices)
        return (np.take(x, indices, axis=axis),)

    @impl(t.PadOp)
    def run_pad(self, interpreter: Interpreter, op: t.PadOp, args):
        (x,) = args
        return (onnx_pad(x, int_list(op.properties, "pads"), op.pad_mode, op.fill),)

    @impl(t.CastOp)
    def run_cast(self, interpreter: Interpreter, op: t.CastOp, args):
        dtype = numpy_dtype(op.to)
        x = args[0]
        if dtype in SATURATING_FLOAT8 and int_value(op.properties, "saturate", 1):
            x = saturated(x, dtype)
        if is_float_dtype(x.dtype) and dtype.kind in "iu" and dtype.itemsize < 4:
            x = through_int32(x)
            if op.clamp_narrow is not None:
                info = np.iinfo(dtype)
                x = np.clip(x, info.min, info.max)
        return (x.astype(dtype),)

    @impl(t.TileOp)
    def run_tile(self, interpreter: Interpreter, op: t.TileOp, args):
        x, repeats = args
        repeats = [int(r) for r in repeats]
        check_size(op, [x.size, *repeats], x.dtype)
        return (np.tile(x, repeats),)

    @impl(t.ExpandOp)
    def run_expand(self, interpreter: Interpreter, op: t.ExpandOp, args):
        x, shape = args
        out = np.broadcast_shapes(x.shape, tuple(int(d) for d in shape))
        check_size(op, out, x.dtype)
        return (np.array(np.broadcast_to(x, out)),)

    @impl(t.DropoutOp)
    def run_dropout(self, interpreter: Interpreter, op: t.DropoutOp, args):
        return (args[0],)
