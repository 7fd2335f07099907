"""Elementwise ops, unary math and activations (Softmax over the last axis)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import AnyFloat, i1
from xdsl.ir import SSAValue

from graph_opt.dialects.nn import elementwise as ew
from graph_opt.dialects.nn.base import f32_attr, i64_array, i64_attr
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.layout import CHANNELS_FIRST
from graph_opt.dialects.nn.norm import SoftmaxOp
from graph_opt.dialects.nn.reduce import ReduceMaxOp, ReduceSumOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.formats.tensorflow.mappings.compare import create_typed
from graph_opt.formats.tensorflow.mappings.layouts import data_layout, reshaped
from graph_opt.formats.tensorflow.op_table import importer, register_simple

for _op_type, _op_class in [
    ("Add", ew.AddOp), ("AddV2", ew.AddOp), ("Sub", ew.SubOp), ("Mul", ew.MulOp),
    ("RealDiv", ew.DivOp), ("Maximum", ew.MaxOp), ("Minimum", ew.MinOp),
    ("Relu", ew.ReluOp), ("Sigmoid", ew.SigmoidOp), ("Tanh", ew.TanhOp),
    ("Sqrt", ew.SqrtOp), ("Exp", ew.ExpOp), ("Log", ew.LogOp), ("Neg", ew.NegOp),
    ("Abs", ew.AbsOp), ("Reciprocal", ew.ReciprocalOp), ("Pow", ew.PowOp),
]:  # fmt: skip
    register_simple(_op_type, _op_class)

for _op_type, _op_class in [
    ("Sin", ew.SinOp), ("Cos", ew.CosOp), ("Tan", ew.TanOp), ("Asin", ew.AsinOp),
    ("Acos", ew.AcosOp), ("Atan", ew.AtanOp), ("Sinh", ew.SinhOp),
    ("Cosh", ew.CoshOp), ("Asinh", ew.AsinhOp), ("Acosh", ew.AcoshOp),
    ("Atanh", ew.AtanhOp), ("Floor", ew.FloorOp), ("Ceil", ew.CeilOp),
    ("Round", ew.RoundOp), ("Sign", ew.SignOp), ("Log1p", ew.Log1pOp),
    ("Expm1", ew.Expm1Op), ("Softplus", ew.SoftplusOp), ("Softsign", ew.SoftsignOp),
    ("Erf", ew.ErfOp), ("Elu", ew.EluOp), ("Selu", ew.SeluOp),
]:  # fmt: skip
    register_simple(_op_type, _op_class)


register_simple("FloorMod", ew.ModOp)
register_simple("Mod", ew.ModOp, lambda b: {"fmod": i64_attr(1)})
register_simple("TruncateMod", ew.ModOp, lambda b: {"fmod": i64_attr(1)})
register_simple("Div", ew.DivOp)  # truncating on integers, as nn.div
register_simple("TruncateDiv", ew.DivOp)  # integers only


def is_float(value: SSAValue) -> bool:
    return isinstance(getattr(value.type, "element_type", None), AnyFloat)


@importer("FloorDiv")
def import_floor_div(b, node, inputs):
    """floor(x / y) on floats. On integers, without an intermediate that can
    overflow (x - floor_mod(x, y) does, for int32 max // -3): the truncated
    quotient, less one where the floored and the truncated remainders differ
    ((floor_mod - truncate_mod) / y is then 1, else 0)."""
    x, y = inputs
    if is_float(x):
        return b.create(ew.FloorOp, [b.create(ew.DivOp, inputs).results[0]])
    floored = b.create(ew.ModOp, inputs).results[0]
    truncated = b.create(ew.ModOp, inputs, {"fmod": i64_attr(1)}).results[0]
    step = b.create(ew.SubOp, [floored, truncated]).results[0]
    correction = b.create(ew.DivOp, [step, y]).results[0]
    quotient = b.create(ew.DivOp, inputs).results[0]
    return b.create(ew.SubOp, [quotient, correction])


@importer("AddN")
def import_add_n(b, node, inputs):
    total = inputs[0]
    for value in inputs[1:]:
        total = b.create(ew.AddOp, [total, value]).results[0]
    return [total]


@importer("ClipByValue")
def import_clip_by_value(b, node, inputs):
    """nn.clip where the bounds are constant scalars, else max(min(t, high), low)."""
    t, low, high = inputs
    bounds = [b.constant_value(v) for v in (low, high)]
    if all(v is not None and v.size == 1 for v in bounds):
        props = {
            n: f32_attr(float(v.reshape(()))) for n, v in zip(("min", "max"), bounds)
        }
        if is_float(t):
            return b.create(ew.ClipOp, [t], props)
    below = b.create(ew.MinOp, [t, high]).results[0]
    return b.create(ew.MaxOp, [below, low])


@importer("ZerosLike", "OnesLike")
def import_fill_like(b, node, inputs):
    x_type = ranked(inputs[0])
    if x_type is None or DYN in x_type.get_shape():
        b.decline("the input's shape must be static")
    fill = np.zeros if node.op == "ZerosLike" else np.ones
    dtype = numpy_dtype(x_type.element_type)
    return [b.constant(fill(x_type.get_shape(), dtype))]


@importer("IsNan", "IsInf", "IsFinite")
def import_float_test(b, node, inputs):
    op_class = {"IsNan": ew.IsNanOp, "IsInf": ew.IsInfOp, "IsFinite": ew.IsFiniteOp}
    return create_typed(b, op_class[node.op], inputs, {}, i1)


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


register_simple("Softmax", SoftmaxOp, lambda b: {"axis": i64_attr(-1)})


@importer("LogSoftmax")
def import_log_softmax(b, node, inputs):
    """x - max - log(sum(exp(x - max))) over the last axis: no softmax that
    underflows to 0 before its log."""
    (x,) = inputs
    last = {"axes": i64_array([-1]), "keepdims": i64_attr(1)}
    shifted = b.create(
        ew.SubOp, [x, b.create(ReduceMaxOp, [x], last).results[0]]
    ).results[0]
    total = b.create(ReduceSumOp, [b.create(ew.ExpOp, [shifted]).results[0]], last)
    log_total = b.create(ew.LogOp, [total.results[0]]).results[0]
    return b.create(ew.SubOp, [shifted, log_total])
