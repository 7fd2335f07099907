"""The gradients of pooling: MaxPoolGrad, MaxPoolGradV2 (window sizes and
strides as inputs), AvgPoolGrad and AvgPool3DGrad.

MaxPoolGrad's `orig_output` is not an operand: TensorFlow's CPU kernel finds
each window's maximum in `orig_input` again (the first one where windows hold
ties), and so does nn.max_pool_grad. MaxPool3DGrad, whose kernel gives every
value within 1e-5 of `orig_output` the whole gradient, is refused
(`attr_support.REFUSED_OPS`)."""

from __future__ import annotations

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.pool_grad import AvgPoolGradOp, MaxPoolGradOp
from graph_opt.formats.tensorflow.mappings.conv import per_spatial_axis, window_props
from graph_opt.formats.tensorflow.mappings.layouts import data_layout, data_layout_3d
from graph_opt.formats.tensorflow.mappings.shape_ops import int_constant
from graph_opt.formats.tensorflow.op_table import importer


def _pool_props(b, node, ksize=None, strides=None) -> dict:
    rank = 5 if "3D" in node.op else 4
    layout = data_layout_3d(b) if rank == 5 else data_layout(b)
    props = window_props(b, layout, dilations=False, rank=rank, strides=strides)
    kernel = per_spatial_axis(b, "ksize", layout, rank, ksize)
    props["kernel_shape"] = i64_array(kernel)
    return props


@importer("MaxPoolGrad")
def import_max_pool_grad(b, node, inputs):
    x, _, output_grad = inputs
    return b.create(MaxPoolGradOp, [x, output_grad], _pool_props(b, node))


@importer("MaxPoolGradV2")
def import_max_pool_grad_v2(b, node, inputs):
    x, _, output_grad, ksize, strides = inputs
    props = _pool_props(
        b,
        node,
        int_constant(b, ksize, "ksize"),
        int_constant(b, strides, "strides"),
    )
    return b.create(MaxPoolGradOp, [x, output_grad], props)


@importer("AvgPoolGrad", "AvgPool3DGrad")
def import_avg_pool_grad(b, node, inputs):
    shape, output_grad = inputs
    props = _pool_props(b, node)
    props["input_shape"] = i64_array(int_constant(b, shape, "orig_input_shape"))
    return b.create(AvgPoolGradOp, [output_grad], props)
