"""Pooling: MaxPool and AvgPool, 2-D and 3-D (TensorFlow's average leaves padding out
of the count)."""

from __future__ import annotations

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.pool import AvgPoolOp, MaxPoolOp
from graph_opt.formats.tensorflow.mappings.conv import per_spatial_axis, window_props
from graph_opt.formats.tensorflow.mappings.layouts import data_layout, data_layout_3d
from graph_opt.formats.tensorflow.op_table import importer


@importer("MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D")
def import_pool(b, node, inputs):
    rank = 5 if node.op.endswith("3D") else 4
    layout = data_layout_3d(b) if rank == 5 else data_layout(b)
    props = window_props(b, layout, dilations=False, rank=rank)
    props["kernel_shape"] = i64_array(per_spatial_axis(b, "ksize", layout, rank))
    op_class = MaxPoolOp if node.op.startswith("MaxPool") else AvgPoolOp
    return b.create(op_class, inputs, props)
