"""ONNX mappings of elementwise ops and activations."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn import elementwise as ew
from graph_opt.dialects.nn.base import f32_attr, int_value
from graph_opt.dialects.nn.device_copy import SwapInOp, SwapOutOp
from graph_opt.formats.onnx.mappings.tensor_ops import exact_float_attr
from graph_opt.formats.onnx.op_table import exporter, importer, register_simple

for _op_type, _op_class in [
    ("Add", ew.AddOp), ("Sub", ew.SubOp), ("Mul", ew.MulOp), ("Div", ew.DivOp),
    ("Pow", ew.PowOp), ("Sqrt", ew.SqrtOp), ("Reciprocal", ew.ReciprocalOp),
    ("Exp", ew.ExpOp), ("Log", ew.LogOp), ("Erf", ew.ErfOp), ("Neg", ew.NegOp),
    ("Abs", ew.AbsOp), ("Relu", ew.ReluOp), ("Sigmoid", ew.SigmoidOp),
    ("Tanh", ew.TanhOp), ("Identity", ew.IdentityOp), ("LeakyRelu", ew.LeakyReluOp),
]:  # fmt: skip
    register_simple(_op_type, _op_class)

for _op_type, _op_class in [
    ("Sin", ew.SinOp), ("Cos", ew.CosOp), ("Tan", ew.TanOp), ("Asin", ew.AsinOp),
    ("Acos", ew.AcosOp), ("Atan", ew.AtanOp), ("Sinh", ew.SinhOp),
    ("Cosh", ew.CoshOp), ("Asinh", ew.AsinhOp), ("Acosh", ew.AcoshOp),
    ("Atanh", ew.AtanhOp), ("Floor", ew.FloorOp), ("Ceil", ew.CeilOp),
    ("Round", ew.RoundOp), ("Sign", ew.SignOp), ("Softplus", ew.SoftplusOp),
    ("Softsign", ew.SoftsignOp), ("Elu", ew.EluOp), ("Selu", ew.SeluOp),
    ("HardSigmoid", ew.HardSigmoidOp), ("IsNaN", ew.IsNanOp), ("IsInf", ew.IsInfOp),
    ("HardSwish", ew.HardSwishOp), ("Mod", ew.ModOp), ("Mish", ew.MishOp),
]:  # fmt: skip
    register_simple(_op_type, _op_class)


def native_from(opset: int, op_type: str):
    """An emitter `(e, x, out)` of a unary op: `op_type` from `opset` on, before
    it the decorated function's decomposition of x (a value's name) into out."""

    def wrap(decompose):
        def emit(e, x: str, out) -> None:
            if e.opset >= opset:
                e.node(op_type, [x], [out])
            else:
                decompose(e, x, out)

        return emit

    return wrap


def unary_exporter(emit):
    """The exporter of a unary op that `emit(e, x, out)` writes."""
    return lambda e, op: emit(e, e.name(op.input), op.output)


@native_from(18, "Mish")
def emit_mish(e, x: str, out) -> None:
    """x * Tanh(Softplus(x))."""
    softplus, tanh = e.fresh(f"{x}_softplus"), e.fresh(f"{x}_tanh")
    e.node("Softplus", [x], [softplus])
    e.node("Tanh", [softplus], [tanh])
    e.node("Mul", [x, tanh], [out])


@native_from(14, "HardSwish")
def emit_hard_swish(e, x: str, out) -> None:
    """x * HardSigmoid(x, 1/6, 1/2)."""
    gate = e.fresh(f"{x}_hard_sigmoid")
    e.node("HardSigmoid", [x], [gate], e.attrs(alpha=1 / 6, beta=0.5))
    e.node("Mul", [x, gate], [out])


SWISH_OPSET = 24


def emit_silu(e, x: str, out) -> None:
    """Swish from opset 24; before it onnxruntime's QuickGelu (x * Sigmoid(alpha
    * x)) with alpha 1 when contrib ops are on, else x * Sigmoid(x)."""
    if e.opset >= SWISH_OPSET:
        e.node("Swish", [x], [out])
    elif e.contrib_ops:
        e.contrib_node("QuickGelu", [x], [out], e.attrs(alpha=1.0))
    else:
        gate = e.fresh(f"{x}_sigmoid")
        e.node("Sigmoid", [x], [gate])
        e.node("Mul", [x, gate], [out])


exporter(ew.MishOp)(unary_exporter(emit_mish))
exporter(ew.HardSwishOp)(unary_exporter(emit_hard_swish))
exporter(ew.SiluOp)(unary_exporter(emit_silu))


@importer("Swish")
def import_swish(b, node, inputs):
    alpha = next((a.f for a in node.attribute if a.name == "alpha"), 1.0)
    if alpha != 1.0 or None in inputs:  # x * sigmoid(alpha * x): kept as an opaque op
        return None
    return b.create(ew.SiluOp, inputs, {})


@exporter(ew.ModOp)
def export_mod(e, op: ew.ModOp):
    """ONNX's floored Mod (fmod=0) takes integers only: on floats it is the
    truncated one plus rhs where the remainder is non-zero and its sign is not rhs's."""
    fmod = int_value(op.properties, "fmod", 0)
    dtype = np.dtype(e.numpy_dtype(op.lhs))
    if fmod or dtype.kind in "iu":
        e.node("Mod", [op.lhs, op.rhs], [op.output], e.attrs(fmod=fmod or None))
        return
    lhs, rhs = e.name(op.lhs), e.name(op.rhs)

    def step(op_type: str, *inputs: str, **attrs) -> str:
        out = e.fresh(f"{lhs}_mod")
        e.node(op_type, list(inputs), [out], e.attrs(**attrs))
        return out

    zero = e.initializer(np.array(0, dtype), "zero")
    remainder = step("Mod", lhs, rhs, fmod=1)
    signs_differ = step("Xor", step("Less", remainder, zero), step("Less", rhs, zero))
    adjust = step("And", step("Not", step("Equal", remainder, zero)), signs_differ)
    e.node("Where", [adjust, step("Add", remainder, rhs), remainder], [op.output])


@exporter(ew.Log1pOp, ew.Expm1Op)
def export_log1p_expm1(e, op):
    """Log(1 + x) and Exp(x) - 1: ONNX has neither op."""
    one = e.initializer(np.array(1, e.numpy_dtype(op.input)), "one")
    inner = e.fresh(f"{e.name(op.input)}_inner")
    if isinstance(op, ew.Log1pOp):
        e.node("Add", [op.input, one], [inner])
        e.node("Log", [inner], [op.output])
    else:
        e.node("Exp", [op.input], [inner])
        e.node("Sub", [inner, one], [op.output])


@exporter(ew.IsFiniteOp)
def export_is_finite(e, op):
    """Not(Or(IsNaN(x), IsInf(x))): ONNX has no IsFinite."""
    x = e.name(op.input)
    nan, inf, either = (e.fresh(f"{x}_{s}") for s in ("nan", "inf", "nonfinite"))
    e.node("IsNaN", [x], [nan])
    e.node("IsInf", [x], [inf])
    e.node("Or", [nan, inf], [either])
    e.node("Not", [either], [op.output])


@importer("Max", "Min")
def import_max_min(b, node, inputs):
    if len(inputs) != 2 or None in inputs:
        return None
    return b.create(ew.MaxOp if node.op_type == "Max" else ew.MinOp, inputs, {})


@exporter(ew.MaxOp, ew.MinOp)
def export_max_min(e, op):
    e.node(
        "Max" if isinstance(op, ew.MaxOp) else "Min",
        list(op.operands),
        list(op.results),
    )


@exporter(ew.StopGradientOp, SwapOutOp, SwapInOp)
def export_as_identity(e, op):
    """Identity of the input: ONNX has no gradients, devices or control inputs."""
    e.node("Identity", [op.input], list(op.results))


@importer("Clip")
def import_clip(b, node, inputs):
    props = {}
    if b.opset < 11:
        for attr in node.attribute:
            props[attr.name] = f32_attr(attr.f)
    else:
        for name, value in zip(("min", "max"), inputs[1:]):
            if value is None:
                continue
            bound = b.constant_value(value)
            if bound is None or bound.size != 1:
                return None
            props[name] = exact_float_attr(float(bound.reshape(())))
    if inputs[0] is None:
        return None
    return b.create(ew.ClipOp, [inputs[0]], props)


@exporter(ew.ClipOp)
def export_clip(e, op: ew.ClipOp):
    dtype = np.dtype(e.numpy_dtype(op.input))
    bounds = [op.min, op.max]
    if e.opset < 11:
        attrs = {
            name: bound.value.data
            for name, bound in zip(("min", "max"), bounds)
            if bound is not None
        }
        e.node("Clip", [op.input], [op.output], e.attrs(**attrs))
        return
    inputs = [op.input] + [
        "" if bound is None else e.initializer(np.array(bound.value.data, dtype=dtype))
        for bound in bounds
    ]
    while inputs[-1] == "":
        inputs.pop()
    e.node("Clip", inputs, [op.output])


GELU_OPSET = 20


@importer("Gelu")
def import_gelu(b, node, inputs):
    if None in inputs:
        return None
    return b.create(ew.GeluOp, inputs, b.props_from(node, allowed=("approximate",)))


@exporter(ew.GeluOp)
def export_gelu(e, op: ew.GeluOp):
    approximate = "none" if op.approximate is None else op.approximate.data
    emit_gelu(e, e.name(op.input), op.output, approximate)


def emit_gelu(e, x: str, out, approximate: str) -> None:
    """Gelu from opset 20; before it onnxruntime's Gelu or FastGelu (tanh) when
    contrib ops are on, else the decomposition."""
    tanh = approximate == "tanh"
    if e.opset >= GELU_OPSET:
        attrs = e.attrs(approximate="tanh" if tanh else None)
        e.node("Gelu", [x], [out], attrs)
        return
    if e.contrib_ops:
        e.contrib_node("FastGelu" if tanh else "Gelu", [x], [out])
        return
    dtype = e.numpy_dtype(out)

    def scalar(value: float) -> str:
        return e.initializer(np.array(value, dtype=dtype))

    def step(op_type: str, *inputs: str) -> str:
        value = e.fresh(f"{x}_gelu")
        e.node(op_type, list(inputs), [value])
        return value

    if tanh:
        # onnxruntime's Pow computes a constant exponent of 3 as x * x * x
        cube = step("Pow", x, scalar(3.0))
        inner = step(
            "Mul",
            step("Add", x, step("Mul", cube, scalar(0.044715))),
            scalar(np.sqrt(2 / np.pi)),
        )
        gate = step("Tanh", inner)
    else:
        gate = step("Erf", step("Div", x, scalar(np.sqrt(2))))
    half_x = step("Mul", x, scalar(0.5))
    e.node("Mul", [half_x, step("Add", gate, scalar(1.0))], [out])
