"""The gradient kernels of training graphs: FusedBatchNormGrad (training mode),
ReluGrad, Conv2DBackpropFilter and BiasAddGrad (a sum over all but the
channel axis). MatMul's gradients are MatMuls with transpose attributes and
Conv2DBackpropInput a transposed convolution (see `linalg`, `conv`)."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn.base import f32_attr, i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.layout import channel_axis
from graph_opt.dialects.nn.reduce import ReduceSumOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.dialects.nn.training import BatchNormGradOp, ConvFilterGradOp, ReluGradOp
from graph_opt.formats.tensorflow.mappings.conv import window_props
from graph_opt.formats.tensorflow.mappings.layouts import data_layout
from graph_opt.formats.tensorflow.op_table import importer, register_simple

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


@importer("BroadcastGradientArgs")
def import_broadcast_gradient_args(b, node, inputs):
    """The axes each operand of a broadcasting op was broadcast along (the
    gradient sums over them), from constant shapes, as TensorFlow's BCast gives
    them: none for equal shapes, else every axis where the operand has size 1
    (left-padded with 1s) and the other does not, or both do."""
    arrays = [b.constant_input(v, "a shape").reshape(-1) for v in inputs]
    shapes = [[int(d) for d in a] for a in arrays]
    reductions: list[list[int]] = [[], []]
    if shapes[0] != shapes[1]:
        rank = max(len(s) for s in shapes)
        padded = [[1] * (rank - len(s)) + s for s in shapes]
        for axis, (x, y) in enumerate(zip(*padded)):
            if 1 not in (x, y) and x != y:
                raise b.error(f"shapes {shapes[0]} and {shapes[1]} do not broadcast")
            if x == 1:
                reductions[0].append(axis)
            if y == 1:
                reductions[1].append(axis)
    return [b.constant(np.array(r, dtype=arrays[0].dtype)) for r in reductions]
