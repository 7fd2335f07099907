"""Pooling: MaxPool and AvgPool (TensorFlow's average leaves padding out of the count)."""

from __future__ import annotations

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.pool import AvgPoolOp, MaxPoolOp
from graph_opt.frontend.tensorflow.mappings.conv import per_spatial_axis, window_props
from graph_opt.frontend.tensorflow.mappings.layouts import data_layout
from graph_opt.frontend.tensorflow.op_table import importer


@importer("MaxPool", "AvgPool")
def import_pool(b, node, inputs):
    layout = data_layout(b)
    props = window_props(b, layout, dilations=False)
    props["kernel_shape"] = i64_array(per_spatial_axis(b, "ksize", layout))
    return b.create(MaxPoolOp if node.op == "MaxPool" else AvgPoolOp, inputs, props)
