"""Helpers the mappings share: TensorFlow's data_format, and reshaping or
transposing a value."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.layout import CHANNELS_FIRST, CHANNELS_LAST, DATA_LAYOUTS
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.dialects.nn.tensor_ops import TransposeOp

LAYOUTS_3D = {"NDHWC": CHANNELS_LAST, "NCDHW": CHANNELS_FIRST}


def data_layout(b) -> str:
    """The node's data_format (NHWC when absent) as an nn data_layout; the
    5-D formats of batch norms as the layout with the same channel axis."""
    layout = b.attr("data_format", CHANNELS_LAST)
    if b.node.op.startswith("FusedBatchNorm"):
        layout = LAYOUTS_3D.get(layout, layout)
    if layout not in DATA_LAYOUTS:
        b.decline(f"data_format {layout} is not supported")
    return layout


def data_layout_3d(b) -> str:
    """The data_format of a 3-D op (NDHWC when absent) as an nn data_layout."""
    layout = b.attr("data_format", "NDHWC")
    if layout not in LAYOUTS_3D:
        b.decline(f"data_format {layout} is not supported")
    return LAYOUTS_3D[layout]


def reshaped(b, value: SSAValue, shape: list[int]) -> SSAValue:
    """`value` in another shape: a new constant when it is one, else an nn.reshape."""
    array = b.constant_value(value)
    if array is not None:
        return b.constant(np.reshape(array, shape))
    target = b.constant(np.array(shape, dtype=np.int64))
    return b.create(ReshapeOp, [value, target]).results[0]


def transposed(b, value: SSAValue, perm: list[int]) -> SSAValue:
    """`value` permuted: itself, a new constant, or an nn.transpose."""
    if perm == sorted(perm):
        return value
    array = b.constant_value(value)
    if array is not None:
        return b.constant(np.ascontiguousarray(np.transpose(array, perm)))
    return b.create(TransposeOp, [value], {"perm": i64_array(perm)}).results[0]
