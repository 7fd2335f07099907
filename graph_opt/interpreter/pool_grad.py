"""Reference implementations of the pooling gradients, summed in the order
TensorFlow's CPU kernels sum them (output positions in row-major order), so
that float32 results match bit for bit. A window offset at a time: one
strided add per kernel position."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.base import int_list
from graph_opt.dialects.nn.dtypes import is_float_dtype
from graph_opt.dialects.nn.layout import CHANNELS_LAST
from graph_opt.dialects.nn.pool_grad import AvgPoolGradOp, MaxPoolGradOp
from graph_opt.interpreter.conv import to_channels_first, to_channels_last
from graph_opt.interpreter.pool import PoolGeometry, lowest


def _window_axes(n: int) -> tuple[slice | None, ...]:
    """Index that gives an N, C, out... array trailing unit window dims."""
    return (Ellipsis, *[None] * n)


def _add_windows(geometry: PoolGeometry, spatial, contributions: np.ndarray, axes=None):
    """Add each window's N, C, out..., k... contributions to the input
    positions they lie on (padding dropped). Each position receives them in
    the order of its windows' output positions, row-major over the spatial
    `axes` (default: in order), as TensorFlow adds them: the reverse of that
    order over the window offsets."""
    n = len(spatial)
    axes = list(axes or range(n))
    pads = geometry.pads
    padded = [
        s + pads[i] + pads[i + n] + geometry.overrun[i] for i, s in enumerate(spatial)
    ]
    grad = np.zeros((*contributions.shape[:2], *padded), contributions.dtype)
    for moved in reversed(list(np.ndindex(*[geometry.kernel[a] for a in axes]))):
        offset = [0] * n
        for a, k in zip(axes, moved):
            offset[a] = k
        region = tuple(
            slice(k * d, k * d + (out - 1) * s + 1, s)
            for k, d, out, s in zip(
                offset, geometry.dilations, geometry.out, geometry.strides
            )
        )
        grad[(slice(None), slice(None), *region)] += contributions[(Ellipsis, *offset)]
    crop = (slice(pads[i], pads[i] + s) for i, s in enumerate(spatial))
    return grad[(slice(None), slice(None), *crop)]


def _valid(geometry: PoolGeometry, spatial) -> np.ndarray:
    """Which window positions lie on the input (1, 1, out..., k...)."""
    return geometry.windows(np.ones((1, 1, *spatial)), 0, 0) > 0


def _first_maximum(flat: np.ndarray, valid: np.ndarray, low) -> np.ndarray:
    """The window position TensorFlow's running maximum ends on: the first
    valid one, replaced only by a greater value; so a NaN wins only as the
    first valid value, and ties go to the first maximum."""
    start = np.argmax(valid, axis=-1)[..., None]
    numbers = valid & ~np.isnan(flat) if is_float_dtype(flat.dtype) else valid
    best = np.where(numbers, flat, low).max(axis=-1, keepdims=True)
    first = np.argmax((flat == best) & numbers, axis=-1)
    leader = np.take_along_axis(flat, start, axis=-1)[..., 0]
    stays = leader != leader  # NaN: nothing is greater
    return np.where(stays, start[..., 0], first)


def max_pool_grad_nchw(op: MaxPoolGradOp, x: np.ndarray, dy: np.ndarray) -> np.ndarray:
    spatial = x.shape[2:]
    geometry = PoolGeometry(op, spatial)
    n = len(spatial)
    low = lowest(x.dtype)
    windows = geometry.windows(x, low, low)
    lead = windows.shape[: 2 + n]
    flat = windows.reshape(*lead, -1)
    valid = np.broadcast_to(
        _valid(geometry, spatial).reshape(1, 1, *lead[2:], -1), flat.shape
    )
    first = _first_maximum(flat, valid, low)
    chosen = np.arange(flat.shape[-1]) == first[..., None]
    contributions = np.where(chosen, dy[..., None], 0).astype(dy.dtype)
    return _add_windows(geometry, spatial, contributions.reshape(windows.shape))


def avg_pool_grad_nchw(op: AvgPoolGradOp, shape, dy: np.ndarray) -> np.ndarray:
    """TensorFlow's kernels: each output gradient times 1 / (its window's
    count of input positions, in the gradient's type), added to those
    positions in the order of the output positions (AvgPool3DGrad's loops
    run over width, then height, then depth)."""
    spatial = tuple(shape[2:])
    geometry = PoolGeometry(op, spatial)
    n = len(spatial)
    valid = _valid(geometry, spatial)
    counts = valid.sum(axis=tuple(range(-n, 0)))
    share = dy * (1.0 / counts).astype(dy.dtype)
    contributions = np.where(valid, share[_window_axes(n)], 0).astype(dy.dtype)
    axes = [2, 1, 0] if n == 3 else None
    return _add_windows(geometry, spatial, contributions, axes)


def _channels_first_shape(shape, layout: str) -> tuple[int, ...]:
    if layout != CHANNELS_LAST:
        return tuple(shape)
    return (shape[0], shape[-1], *shape[1:-1])


@register_impls
class PoolGradFunctions(InterpreterFunctions):
    @impl(MaxPoolGradOp)
    def run_max_pool_grad(self, interpreter: Interpreter, op: MaxPoolGradOp, args):
        x, dy = args
        if op.layout == CHANNELS_LAST:
            grad = max_pool_grad_nchw(op, to_channels_first(x), to_channels_first(dy))
            return (np.ascontiguousarray(to_channels_last(grad)),)
        return (max_pool_grad_nchw(op, x, dy),)

    @impl(AvgPoolGradOp)
    def run_avg_pool_grad(self, interpreter: Interpreter, op: AvgPoolGradOp, args):
        (dy,) = args
        shape = _channels_first_shape(int_list(op.properties, "input_shape"), op.layout)
        if op.layout == CHANNELS_LAST:
            grad = avg_pool_grad_nchw(op, shape, to_channels_first(dy))
            return (np.ascontiguousarray(to_channels_last(grad)),)
        return (avg_pool_grad_nchw(op, shape, dy),)
