"""ONNX mappings of elementwise ops and activations."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn import elementwise as ew
from graph_opt.dialects.nn.base import f32_attr
from graph_opt.frontend.onnx_op_table import exporter, importer, register_simple

for _op_type, _op_class in [
    ("Add", ew.AddOp), ("Sub", ew.SubOp), ("Mul", ew.MulOp), ("Div", ew.DivOp),
    ("Pow", ew.PowOp), ("Sqrt", ew.SqrtOp), ("Reciprocal", ew.ReciprocalOp),
    ("Exp", ew.ExpOp), ("Log", ew.LogOp), ("Erf", ew.ErfOp), ("Neg", ew.NegOp),
    ("Abs", ew.AbsOp), ("Relu", ew.ReluOp), ("Sigmoid", ew.SigmoidOp),
    ("Tanh", ew.TanhOp), ("Identity", ew.IdentityOp), ("LeakyRelu", ew.LeakyReluOp),
]:  # fmt: skip
    register_simple(_op_type, _op_class)


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


@exporter(ew.StopGradientOp)
def export_stop_gradient(e, op):
    e.node("Identity", list(op.operands), list(op.results))


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
            props[name] = f32_attr(float(bound.reshape(())))
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
    """Gelu is an ONNX op from opset 20; before that, its decomposition."""
    if e.opset >= GELU_OPSET:
        e.node("Gelu", [op.input], [op.output], e.props_to_attrs(op.properties))
        return
    dtype = e.numpy_dtype(op.input)
    x = e.name(op.input)

    def scalar(value: float) -> str:
        return e.initializer(np.array(value, dtype=dtype))

    def step(op_type: str, *inputs: str) -> str:
        out = e.fresh(f"{x}_gelu")
        e.node(op_type, list(inputs), [out])
        return out

    tanh = op.approximate is not None and op.approximate.data == "tanh"
    if tanh:
        cube = step("Mul", step("Mul", x, x), x)
        inner = step(
            "Mul",
            step("Add", x, step("Mul", cube, scalar(0.044715))),
            scalar(np.sqrt(2 / np.pi)),
        )
        gate = step("Tanh", inner)
    else:
        gate = step("Erf", step("Div", x, scalar(np.sqrt(2))))
    half_x = step("Mul", x, scalar(0.5))
    e.node("Mul", [half_x, step("Add", gate, scalar(1.0))], [op.output])
