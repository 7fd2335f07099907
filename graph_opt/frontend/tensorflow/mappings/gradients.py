"""The gradient kernels of training graphs: FusedBatchNormGrad (training mode),
ReluGrad, Conv2DBackpropFilter and BiasAddGrad (a sum over all but the
channel axis). MatMul's gradients are MatMuls with transpose attributes and
Conv2DBackpropInput a transposed convolution (see `linalg`, `conv`)."""

from __future__ import annotations

from graph_opt.dialects.nn.base import f32_attr, i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.layout import channel_axis
from graph_opt.dialects.nn.reduce import ReduceSumOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.dialects.nn.training import BatchNormGradOp, ConvFilterGradOp, ReluGradOp
from graph_opt.frontend.tensorflow.mappings.conv import window_props
from graph_opt.frontend.tensorflow.mappings.layouts import data_layout
from graph_opt.frontend.tensorflow.op_table import importer, register_simple

register_simple("ReluGrad", ReluGradOp)


@importer("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3")
def import_fused_batch_norm_grad(b, node, inputs):
    if not b.attr("is_training", True):
        b.decline("the gradient of an inference-mode batch norm is not supported")
    props = {
        "epsilon": f32_attr(b.attr("epsilon", 1e-4)),
        "data_layout": str_attr(data_layout(b)),
    }
    grads = b.create(BatchNormGradOp, inputs[:5], props).results
    # reserve_space_4 and 5 are unused placeholders
    return [*grads, grads[1], grads[2]]


@importer("Conv2DBackpropFilter")
def import_conv_backprop_filter(b, node, inputs):
    x, filter_sizes, output_grad = inputs
    shape = [int(v) for v in b.constant_input(filter_sizes, "filter_sizes").reshape(-1)]
    layout = data_layout(b)
    props = window_props(b, layout)
    props["filter_shape"] = i64_array(shape)
    return b.create(ConvFilterGradOp, [x, output_grad], props)


@importer("BiasAddGrad")
def import_bias_add_grad(b, node, inputs):
    x = ranked(inputs[0])
    if x is None:
        b.decline("BiasAddGrad needs a ranked input")
    rank = len(x.get_shape())
    axis = channel_axis(data_layout(b), rank)
    axes = [a for a in range(rank) if a != axis]
    return b.create(
        ReduceSumOp, inputs, {"axes": i64_array(axes), "keepdims": i64_attr(0)}
    )
