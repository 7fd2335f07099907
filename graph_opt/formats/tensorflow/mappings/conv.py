"""Convolutions: Conv2D, DepthwiseConv2dNative and Conv2DBackpropInput, NHWC data
with HWIO filters (or NCHW); Conv3D and Conv3DBackpropInputV2, NDHWC with DHWIO
filters (or NCDHW)."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn.base import i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.conv import ConvOp, ConvTransposeOp
from graph_opt.dialects.nn.layout import CHANNELS_LAST
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.formats.tensorflow.mappings.layouts import (
    data_layout,
    data_layout_3d,
    reshaped,
)
from graph_opt.formats.tensorflow.op_table import importer

TF_PADDINGS = {"SAME": "SAME_UPPER", "VALID": "VALID"}
"""TensorFlow's SAME puts the odd padding at the end, as ONNX's SAME_UPPER."""


def _spatial_axes(layout: str, rank: int = 4) -> tuple[list[int], list[int]]:
    """(spatial axes, batch and channel axes) of a tensor of `rank` in `layout`."""
    if layout == CHANNELS_LAST:
        return list(range(1, rank - 1)), [0, rank - 1]
    return list(range(2, rank)), [0, 1]


def per_spatial_axis(
    b, name: str, layout: str, rank: int = 4, values: list[int] | None = None
) -> list[int]:
    """The spatial values of attribute `name` (or of `values`, an input's)."""
    # strides and ksize have no default in TensorFlow's op definitions: its
    # importer refuses a node without them; dilations default to ones
    if values is None:
        values = b.attr(name, [1] * rank) if name == "dilations" else b.attr(name)
    spatial, other = _spatial_axes(layout, rank)
    if len(values) != rank or any(values[a] != 1 for a in other):
        b.decline(
            f"{name} {values} must be {rank} values, 1 on the batch and channel axes"
        )
    return [values[a] for a in spatial]


def window_props(
    b, layout: str, dilations: bool = True, rank: int = 4, strides=None
) -> dict:
    """strides (the attribute's, or `strides` given as an input), dilations and
    padding of a 2-D (3-D with rank 5) window op, as nn.conv properties."""
    strides = per_spatial_axis(b, "strides", layout, rank, strides)
    props = {"strides": i64_array(strides)}
    if dilations:
        props["dilations"] = i64_array(per_spatial_axis(b, "dilations", layout, rank))
    props["data_layout"] = str_attr(layout)
    padding = b.attr("padding")
    if padding in TF_PADDINGS:
        props["auto_pad"] = str_attr(TF_PADDINGS[padding])
    elif padding == "EXPLICIT":
        flat = b.attr("explicit_paddings", [])
        spatial, other = _spatial_axes(layout, rank)
        pairs = list(zip(flat[0::2], flat[1::2]))
        if len(flat) != 2 * rank or any(pairs[a] != (0, 0) for a in other):
            b.decline(f"explicit_paddings {flat} must pad only the spatial axes")
        props["pads"] = i64_array(
            [pairs[a][0] for a in spatial] + [pairs[a][1] for a in spatial]
        )
    else:
        b.decline(f"padding {padding} is not supported")
    return props


def _filter_for_layout(b, layout: str, filter_value, rank: int = 4):
    """TensorFlow filters are HWIO (DHWIO) for both data formats; nn wants OIHW
    (OIDHW) with channels first."""
    if layout == CHANNELS_LAST:
        return filter_value
    array = b.constant_input(filter_value, "the filter of a channels-first convolution")
    perm = (rank - 1, rank - 2, *range(rank - 2))
    return b.constant(np.ascontiguousarray(np.transpose(array, perm)))


@importer("Conv2D")
def import_conv2d(b, node, inputs):
    layout = data_layout(b)
    props = window_props(b, layout)
    x, w = inputs
    return b.create(ConvOp, [x, _filter_for_layout(b, layout, w)], props)


@importer("DepthwiseConv2dNative")
def import_depthwise_conv2d(b, node, inputs):
    """A [H, W, C, M] filter is, in memory, the HWIO filter [H, W, 1, C*M] of a conv
    with C groups: output channel c*M + m reads input channel c in both."""
    layout = data_layout(b)
    props = window_props(b, layout)
    x, w = inputs
    w_type = ranked(w)
    if w_type is None or len(w_type.get_shape()) != 4 or DYN in w_type.get_shape():
        b.decline("the filter needs a static 4-D shape")
    height, width, channels, multiplier = w_type.get_shape()
    grouped = reshaped(b, w, [height, width, 1, channels * multiplier])
    props["group"] = i64_attr(channels)
    return b.create(ConvOp, [x, _filter_for_layout(b, layout, grouped)], props)


def _transpose_padding(b, spatial, sizes, kernel, strides, dilations, outputs):
    """nn.conv_transpose pads and output_padding giving TensorFlow's output size:
    the padding of the forward conv from `outputs` to `sizes` (SAME: the odd one
    at the end), then output_padding for the last rows no input reaches."""
    padding = b.attr("padding")
    windows = [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]
    if padding == "EXPLICIT":
        flat = b.attr("explicit_paddings", [])
        if len(flat) != 2 * (len(spatial) + 2):
            b.decline(
                f"explicit_paddings {flat} must have {2 * (len(spatial) + 2)} values"
            )
        begins = [flat[2 * a] for a in spatial]
        ends = [flat[2 * a + 1] for a in spatial]
    elif padding in TF_PADDINGS:
        begins, ends = [], []
        for o, s, window in zip(outputs, strides, windows):
            forward = -(-o // s)
            total = 0 if padding == "VALID" else max(0, (forward - 1) * s + window - o)
            begins.append(total // 2)
            ends.append(total - total // 2)
    else:
        b.decline(f"padding {padding} is not supported")
    forward_sizes = [
        (o + p0 + p1 - window) // s + 1
        for o, p0, p1, window, s in zip(outputs, begins, ends, windows, strides)
    ]
    if forward_sizes != list(sizes):
        b.decline(
            f"input_sizes {outputs} give a forward output of {forward_sizes}, not the input's {list(sizes)}"
        )
    extra = [
        o - (s * (i - 1) + window - p0 - p1)
        for i, o, s, window, p0, p1 in zip(sizes, outputs, strides, windows, begins, ends)
    ]  # fmt: skip
    return begins + ends, extra


@importer("Conv2DBackpropInput", "Conv3DBackpropInputV2")
def import_conv_backprop_input(b, node, inputs):
    """The gradient of Conv2D (Conv3D) by its input, a transposed convolution. The
    HWIO filter of the forward conv is HWOI for nn.conv_transpose (or IOHW,
    permuted, with NCHW); the output size comes from the constant input_sizes."""
    rank = 5 if node.op.startswith("Conv3D") else 4
    layout = data_layout_3d(b) if rank == 5 else data_layout(b)
    input_sizes, w, x = inputs
    outputs = [int(v) for v in b.constant_input(input_sizes, "input_sizes").reshape(-1)]
    x_type, w_type = ranked(x), ranked(w)
    spatial, _ = _spatial_axes(layout, rank)
    if x_type is None or w_type is None or len(outputs) != rank:
        b.decline(f"input, filter and input_sizes need rank {rank}")
    sizes = [x_type.get_shape()[a] for a in spatial]
    kernel = list(w_type.get_shape()[: rank - 2])
    if DYN in sizes + kernel:
        b.decline("the input's spatial dims and the filter need static sizes")
    props = window_props(b, layout, rank=rank)
    props.pop("auto_pad", None)  # the forward conv's padding, resolved below
    strides, dilations = props["strides"].get_values(), props["dilations"].get_values()
    out_sizes = [outputs[a] for a in spatial]
    pads, extra = _transpose_padding(
        b, spatial, sizes, kernel, strides, dilations, out_sizes
    )
    props["pads"] = i64_array(pads)
    if any(extra):
        props["output_padding"] = i64_array(extra)
    w = _filter_for_layout(b, layout, w, rank)
    return b.create(ConvTransposeOp, [x, w], props)


@importer("Conv3D")
def import_conv3d(b, node, inputs):
    """NDHWC data with a DHWIO filter (OIDHW, permuted, with NCDHW)."""
    layout = data_layout_3d(b)
    props = window_props(b, layout, rank=5)
    x, w = inputs
    return b.create(ConvOp, [x, _filter_for_layout(b, layout, w, 5)], props)
