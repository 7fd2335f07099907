"""Convolutions: Conv2D and DepthwiseConv2dNative, NHWC data with HWIO filters (or NCHW)."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn.base import i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.layout import CHANNELS_LAST
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.frontend.tensorflow.mappings.layouts import data_layout, reshaped
from graph_opt.frontend.tensorflow.op_table import importer

TF_PADDINGS = {"SAME": "SAME_UPPER", "VALID": "VALID"}
"""TensorFlow's SAME puts the odd padding at the end, as ONNX's SAME_UPPER."""


def _spatial_axes(layout: str) -> tuple[list[int], list[int]]:
    """(spatial axes, batch and channel axes) of a 4-D tensor in `layout`."""
    return ([1, 2], [0, 3]) if layout == CHANNELS_LAST else ([2, 3], [0, 1])


def per_spatial_axis(b, name: str, layout: str) -> list[int]:
    values = b.attr(name, [1, 1, 1, 1])
    spatial, other = _spatial_axes(layout)
    if len(values) != 4 or any(values[a] != 1 for a in other):
        b.decline(f"{name} {values} must be 4 values, 1 on the batch and channel axes")
    return [values[a] for a in spatial]


def window_props(b, layout: str, dilations: bool = True) -> dict:
    """strides, dilations and padding of a 2-D window op, as nn.conv properties."""
    props = {"strides": i64_array(per_spatial_axis(b, "strides", layout))}
    if dilations:
        props["dilations"] = i64_array(per_spatial_axis(b, "dilations", layout))
    props["data_layout"] = str_attr(layout)
    padding = b.attr("padding")
    if padding in TF_PADDINGS:
        props["auto_pad"] = str_attr(TF_PADDINGS[padding])
    elif padding == "EXPLICIT":
        flat = b.attr("explicit_paddings", [])
        spatial, other = _spatial_axes(layout)
        pairs = list(zip(flat[0::2], flat[1::2]))
        if len(flat) != 8 or any(pairs[a] != (0, 0) for a in other):
            b.decline(f"explicit_paddings {flat} must pad only the spatial axes")
        props["pads"] = i64_array(
            [pairs[a][0] for a in spatial] + [pairs[a][1] for a in spatial]
        )
    else:
        b.decline(f"padding {padding} is not supported")
    return props


def _filter_for_layout(b, layout: str, filter_value):
    """TensorFlow filters are HWIO for both data formats; nn wants OIHW with NCHW."""
    if layout == CHANNELS_LAST:
        return filter_value
    array = b.constant_input(filter_value, "the filter of an NCHW convolution")
    return b.constant(np.ascontiguousarray(np.transpose(array, (3, 2, 0, 1))))


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
