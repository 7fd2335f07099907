"""Reference implementation of convolution (N-D, grouped, any layout)."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.base import int_value, str_value
from graph_opt.dialects.nn.conv import ConvOp, resolve_pads
from graph_opt.dialects.nn.layout import CHANNELS_LAST


def to_channels_first(x: np.ndarray) -> np.ndarray:
    return np.moveaxis(x, -1, 1)


def to_channels_last(x: np.ndarray) -> np.ndarray:
    return np.moveaxis(x, 1, -1)


def conv_nchw(
    x: np.ndarray,
    w: np.ndarray,
    strides: list[int],
    pads: list[int],
    dilations: list[int],
    group: int,
) -> np.ndarray:
    """Grouped N-D convolution of NC... data with an OI... filter (no bias)."""
    n = x.ndim - 2
    pad_width = [(0, 0), (0, 0)] + [(pads[i], pads[i + n]) for i in range(n)]
    x = np.pad(x, pad_width)
    kernel = w.shape[2:]
    effective = [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]
    windows = sliding_window_view(x, effective, axis=tuple(range(2, 2 + n)))
    index = (Ellipsis,) + tuple(slice(None, None, d) for d in dilations)
    windows = windows[index]
    windows = windows[
        (slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)
    ]
    batch, channels = x.shape[:2]
    out_channels = w.shape[0]
    cg, og = channels // group, out_channels // group
    out_spatial = windows.shape[2 : 2 + n]
    windows = windows.reshape(batch, group, cg, *out_spatial, *kernel)
    wg = w.reshape(group, og, cg, *kernel)
    spatial_letters = "xyz"[:n]
    kernel_letters = "uvw"[:n]
    expr = f"bgc{spatial_letters}{kernel_letters},goc{kernel_letters}->bgo{spatial_letters}"
    out = np.einsum(expr, windows, wg, optimize=True)
    return out.reshape(batch, out_channels, *out_spatial).astype(x.dtype, copy=False)


def filter_to_oihw(w: np.ndarray) -> np.ndarray:
    """HWIO (channels-last filters) to OIHW."""
    return np.moveaxis(np.moveaxis(w, -1, 0), -1, 1)


@register_impls
class ConvFunctions(InterpreterFunctions):
    @impl(ConvOp)
    def run_conv(self, interpreter: Interpreter, op: ConvOp, args):
        x, w, *bias = args
        channels_last = str_value(op.properties, "data_layout", "NCHW") == CHANNELS_LAST
        if channels_last:
            x, w = to_channels_first(x), filter_to_oihw(w)
        n = x.ndim - 2
        strides, dilations, pads, auto_pad = ConvOp.window_props(op.properties, n)
        pads = resolve_pads(
            auto_pad, pads, list(x.shape[2:]), list(w.shape[2:]), strides, dilations
        )
        out = conv_nchw(
            x, w, strides, pads, dilations, int_value(op.properties, "group", 1)
        )
        if bias:
            out = out + bias[0].reshape((1, -1) + (1,) * n)
        if channels_last:
            out = to_channels_last(out)
        return (np.ascontiguousarray(out),)
