"""ONNX mapping of Resize: nearest and linear, from constant sizes or scales."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn.base import i64_array, int_list, str_attr
from graph_opt.dialects.nn.resize import (
    COORDINATE_MODES,
    KEEP,
    NEAREST_MODES,
    RESIZE_MODES,
    ResizeOp,
)
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.formats.onnx.op_table import exporter, importer

UNSUPPORTED = {"antialias": 0, "exclude_outside": 0}
"""Attributes whose other values nn.resize cannot express."""


def _sizes(b, x, scales, sizes) -> list[int] | None:
    """The output shape from constant sizes, or from scales that give whole sizes
    (the scale is then out / in, the one nn.resize uses)."""
    if sizes is not None:
        array = b.constant_value(sizes)
        return None if array is None else [int(v) for v in array]
    array = b.constant_value(scales) if scales is not None else None
    if array is None or x is None or DYN in x.get_shape():
        return None
    out = [int(np.floor(d * float(s))) for d, s in zip(x.get_shape(), array)]
    if any(
        np.float32(o / d) != np.float32(s) for o, d, s in zip(out, x.get_shape(), array)
    ):
        return None
    return out


@importer("Resize")
def import_resize(b, node, inputs):
    attrs = {
        k: v.decode() if isinstance(v, bytes) else v for k, v in b.attrs(node).items()
    }
    if b.opset < 11 or inputs[0] is None:
        return None
    mode = attrs.pop("mode", "nearest")
    coordinates = attrs.pop("coordinate_transformation_mode", "half_pixel")
    nearest = attrs.pop("nearest_mode", "round_prefer_floor")
    attrs.pop("cubic_coeff_a", None)
    attrs.pop("extrapolation_value", None)
    if attrs.pop("keep_aspect_ratio_policy", "stretch") != "stretch":
        return None
    if any(attrs.pop(k, v) != v for k, v in UNSUPPORTED.items()) or attrs:
        return None  # antialias, exclude_outside or axes
    if mode not in RESIZE_MODES or coordinates not in COORDINATE_MODES:
        return None
    if nearest not in NEAREST_MODES:
        return None
    x, _roi, scales, sizes = (inputs + [None] * 4)[:4]
    out = _sizes(b, ranked(x), scales, sizes)
    if out is None:
        return None
    props = {
        "sizes": i64_array(out),
        "mode": str_attr(mode),
        "coordinate_transformation_mode": str_attr(coordinates),
        "nearest_mode": str_attr(nearest),
    }
    return b.create(ResizeOp, [x], props)


@exporter(ResizeOp)
def export_resize(e, op: ResizeOp):
    """Kept (-1) dims: their static size, else (opset 18) left out of `axes`."""
    if e.opset < 11:
        e.unsupported(op, f"Resize with sizes needs opset 11, the model has {e.opset}")
    sizes = list(int_list(op.properties, "sizes"))
    out_type = ranked(op.output)
    shape = out_type.get_shape() if out_type is not None else [DYN] * len(sizes)
    sizes = [d if s == KEEP else s for s, d in zip(sizes, shape)]
    axes = None
    if DYN in sizes:
        if e.opset < 18:
            e.unsupported(
                op, f"a kept dim of unknown size needs opset 18, not {e.opset}"
            )
        axes = [i for i, s in enumerate(sizes) if s != DYN]  # static or resized
        sizes = [sizes[i] for i in axes]
    attrs = e.attrs(
        mode=op.resize_mode,
        coordinate_transformation_mode=op.coordinate_mode,
        nearest_mode=op.rounding,
        axes=axes,
    )
    sizes_name = e.initializer(np.array(sizes, np.int64), "sizes")
    if e.opset < 13:
        empty = e.initializer(np.zeros(0, np.float32), "empty")
        e.node("Resize", [op.input, empty, empty, sizes_name], [op.output], attrs)
        return
    e.node("Resize", [op.input, "", "", sizes_name], [op.output], attrs)
