"""Elementwise ops and activations (Elu as a composite, Softmax over the last axis)."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn import elementwise as ew
from graph_opt.dialects.nn.base import f32_attr, i64_attr
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.layout import CHANNELS_FIRST
from graph_opt.dialects.nn.norm import SoftmaxOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.frontend.tensorflow.mappings.layouts import data_layout, reshaped
from graph_opt.frontend.tensorflow.op_table import importer, register_simple

for _op_type, _op_class in [
    ("Add", ew.AddOp), ("AddV2", ew.AddOp), ("Sub", ew.SubOp), ("Mul", ew.MulOp),
    ("RealDiv", ew.DivOp), ("Maximum", ew.MaxOp), ("Minimum", ew.MinOp),
    ("Relu", ew.ReluOp), ("Sigmoid", ew.SigmoidOp), ("Tanh", ew.TanhOp),
    ("Sqrt", ew.SqrtOp), ("Exp", ew.ExpOp), ("Log", ew.LogOp), ("Neg", ew.NegOp),
    ("Abs", ew.AbsOp), ("Reciprocal", ew.ReciprocalOp), ("Pow", ew.PowOp),
]:  # fmt: skip
    register_simple(_op_type, _op_class)

register_simple(
    "Relu6", ew.ClipOp, lambda b: {"min": f32_attr(0.0), "max": f32_attr(6.0)}
)
register_simple(
    "LeakyRelu", ew.LeakyReluOp, lambda b: {"alpha": f32_attr(b.attr("alpha", 0.2))}
)


@importer("Rsqrt")
def import_rsqrt(b, node, inputs):
    root = b.create(ew.SqrtOp, inputs).results[0]
    return b.create(ew.ReciprocalOp, [root])


@importer("Square")
def import_square(b, node, inputs):
    return b.create(ew.MulOp, [inputs[0], inputs[0]])


@importer("SquaredDifference")
def import_squared_difference(b, node, inputs):
    difference = b.create(ew.SubOp, inputs).results[0]
    return b.create(ew.MulOp, [difference, difference])


@importer("BiasAdd", "BiasAddV1")
def import_bias_add(b, node, inputs):
    """The 1-D bias is added along the channel axis: the last one (NHWC), or axis 1
    (NCHW), where it is reshaped to [C, 1, ...] to broadcast."""
    x, bias = inputs
    if data_layout(b) == CHANNELS_FIRST:
        x_type = ranked(x)
        if x_type is None:
            b.decline("an NCHW BiasAdd needs a ranked input")
        bias = reshaped(b, bias, [-1] + [1] * (len(x_type.get_shape()) - 2))
    return b.create(ew.AddOp, [x, bias])


@importer("Elu")
def import_elu(b, node, inputs):
    """elu(x) = max(x, 0) + exp(min(x, 0)) - 1: x where positive (exp(0) - 1 is
    exactly 0), exp(x) - 1 elsewhere; nn has no elu op."""
    (x,) = inputs
    dtype = numpy_dtype(x.type.element_type)
    zero, one = b.constant(np.zeros((), dtype)), b.constant(np.ones((), dtype))
    positive = b.create(ew.MaxOp, [x, zero]).results[0]
    negative = b.create(ew.MinOp, [x, zero]).results[0]
    exp = b.create(ew.ExpOp, [negative]).results[0]
    expm1 = b.create(ew.SubOp, [exp, one]).results[0]
    return b.create(ew.AddOp, [positive, expm1])


register_simple("Softmax", SoftmaxOp, lambda b: {"axis": i64_attr(-1)})
