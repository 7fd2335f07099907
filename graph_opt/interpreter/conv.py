"""Reference implementation of convolution (N-D, grouped, any layout)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.base import int_value, str_value
from graph_opt.dialects.nn.conv import (
    ConvolutionBase,
    ConvOp,
    ConvTransposeOp,
    resolve_pads,
    transposed_pads_and_sizes,
)
from graph_opt.dialects.nn.layout import CHANNELS_LAST


def to_channels_first(x: np.ndarray) -> np.ndarray:
    return np.moveaxis(x, -1, 1)


def to_channels_last(x: np.ndarray) -> np.ndarray:
    return np.moveaxis(x, 1, -1)


def pad_spatial(
    x: np.ndarray,
    begins: Sequence[int],
    ends: Sequence[int],
    fill: float | int = 0,
) -> np.ndarray:
    """Pad the spatial dims of NC... data by `fill`; negative amounts crop."""
    pad_width = [(0, 0), (0, 0)] + [
        (max(b, 0), max(e, 0)) for b, e in zip(begins, ends)
    ]
    x = np.pad(x, pad_width, constant_values=fill)
    crop = tuple(
        slice(max(-b, 0), size - max(-e, 0))
        for b, e, size in zip(begins, ends, x.shape[2:])
    )
    return x[(slice(None), slice(None), *crop)]


def sliding_windows(
    x: np.ndarray,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> np.ndarray:
    """A view of NC... data as N, C, out..., k... windows (no padding)."""
    n = x.ndim - 2
    effective = [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]
    windows = sliding_window_view(x, effective, axis=tuple(range(2, 2 + n)))
    windows = windows[(Ellipsis, *(slice(None, None, d) for d in dilations))]
    return windows[(slice(None), slice(None), *(slice(None, None, s) for s in strides))]


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
    x = pad_spatial(x, pads[:n], pads[n:])
    kernel = w.shape[2:]
    windows = sliding_windows(x, kernel, strides, dilations)
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
    """A channels-last filter (k..., A, B) to channels-first (B, A, k...):
    HWIO to OIHW, and HWOI to IOHW."""
    return np.moveaxis(np.moveaxis(w, -1, 0), -1, 1)


def conv_transpose_nchw(
    x: np.ndarray,
    w: np.ndarray,
    strides: list[int],
    pads: list[int],
    dilations: list[int],
    group: int,
    output_padding: list[int],
) -> np.ndarray:
    """Grouped N-D transposed convolution of NC... data with an IO... filter (no bias):
    each input element times the filter, added at its strided place (col2im,
    as onnxruntime). No product is taken with a zero the strides or pads
    insert, so an infinite weight gives inf only where an input reaches, not
    0 * inf = NaN everywhere."""
    n = x.ndim - 2
    batch, channels = x.shape[:2]
    spatial, kernel = x.shape[2:], w.shape[2:]
    in_per_group, out_per_group = channels // group, w.shape[1]
    full = [
        st * (s - 1) + d * (k - 1) + 1 + p
        for s, st, k, d, p in zip(spatial, strides, kernel, dilations, output_padding)
    ]
    xg = x.reshape(batch, group, in_per_group, *spatial)
    wg = w.reshape(group, in_per_group, out_per_group, *kernel)
    letters = "xyz"[:n]
    out = np.zeros((batch, group, out_per_group, *full), np.result_type(x, w))
    for offset in np.ndindex(*kernel):
        tap = wg[(slice(None), slice(None), slice(None), *offset)]
        part = np.einsum(f"bgc{letters},gco->bgo{letters}", xg, tap)
        place = tuple(
            slice(o * d, o * d + st * (s - 1) + 1, st)
            for o, d, st, s in zip(offset, dilations, strides, spatial)
        )
        out[(slice(None),) * 3 + place] += part
    out = out.reshape(batch, group * out_per_group, *full)
    out = pad_spatial(out, [-p for p in pads[:n]], [-p for p in pads[n:]])
    return out.astype(x.dtype, copy=False)


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

    @impl(ConvTransposeOp)
    def run_conv_transpose(self, interpreter: Interpreter, op: ConvTransposeOp, args):
        x, w, *bias = args
        return (transposed_conv(op, x, w, bias[0] if bias else None),)


def transposed_conv(
    op: ConvolutionBase, x: np.ndarray, w: np.ndarray, bias: np.ndarray | None
) -> np.ndarray:
    """nn.conv_transpose's (or nn.qconv_transpose's) result for its properties,
    in the dtype of x and w."""
    channels_last = op.layout == CHANNELS_LAST
    if channels_last:
        x, w = to_channels_first(x), filter_to_oihw(w)
    n = x.ndim - 2
    strides, dilations, pads, auto_pad, output_padding, output_shape = (
        ConvTransposeOp.transpose_props(op.properties, n)
    )
    pads, _ = transposed_pads_and_sizes(
        list(x.shape[2:]),
        list(w.shape[2:]),
        strides,
        dilations,
        pads,
        auto_pad,
        output_padding,
        output_shape,
    )
    group = int_value(op.properties, "group", 1)
    out = conv_transpose_nchw(x, w, strides, pads, dilations, group, output_padding)
    if bias is not None:
        out = out + bias.reshape((1, -1) + (1,) * n)
    if channels_last:
        out = to_channels_last(out)
    return np.ascontiguousarray(out)
