"""ONNX mappings of normalizations and softmax."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn.base import i64_attr
from graph_opt.dialects.nn.norm import BatchNormOp, LayerNormOp, SoftmaxOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.formats.onnx.op_table import check_channels_first, exporter, importer


@importer("BatchNormalization")
def import_batch_norm(b, node, inputs):
    attrs = b.attrs(node)
    if len(node.output) > 1 and any(node.output[1:]) or attrs.get("training_mode", 0):
        return None
    if None in inputs[:5]:
        return None
    props = {"epsilon": b.f32(attrs.get("epsilon", 1e-5))}
    return b.create(BatchNormOp, inputs[:5], props)


@exporter(BatchNormOp)
def export_batch_norm(e, op: BatchNormOp):
    check_channels_first(e, op)
    e.node(
        "BatchNormalization",
        list(op.operands),
        [op.output],
        e.attrs(epsilon=op.epsilon.value.data),
    )


@importer("LayerNormalization")
def import_layer_norm(b, node, inputs):
    attrs = b.attrs(node)
    # Mean and InvStdDev have no nn form; stash_type 0 computes in the input type.
    if len(node.output) > 1 or attrs.get("stash_type", 1) != 1:
        return None
    if None in inputs[:2]:
        return None
    props = b.props_from(node, allowed=("axis", "epsilon"))
    return b.create(LayerNormOp, [v for v in inputs if v is not None], props)


LAYER_NORM_OPSET = 17


@exporter(LayerNormOp)
def export_layer_norm(e, op: LayerNormOp):
    """LayerNormalization from opset 17; before it, its decomposition (a fusion
    of a decomposed layer norm must not make an older model unexportable)."""
    if e.opset >= LAYER_NORM_OPSET:
        e.node(
            "LayerNormalization",
            list(op.operands),
            [op.output],
            e.props_to_attrs(op.properties),
        )
        return
    x_type = ranked(op.input)
    if x_type is None:
        e.unsupported(op, f"an input of unknown rank needs opset {LAYER_NORM_OPSET}")
    rank = len(x_type.get_shape())
    axes = list(range(op.axis_value % rank, rank))
    x = e.name(op.input)

    def step(op_type: str, *inputs: str, **attrs) -> str:
        out = e.fresh(f"{x}_layer_norm")
        e.node(op_type, list(inputs), [out], attrs)
        return out

    epsilon = e.initializer(
        np.array(op.epsilon_value, dtype=e.numpy_dtype(op.input)), f"{x}_epsilon"
    )
    centered = step("Sub", x, step("ReduceMean", x, axes=axes))
    variance = step("ReduceMean", step("Mul", centered, centered), axes=axes)
    normalized = step("Div", centered, step("Sqrt", step("Add", variance, epsilon)))
    if op.bias is None:
        e.node("Mul", [normalized, op.scale], [op.output])
    else:
        e.node("Add", [step("Mul", normalized, e.name(op.scale)), op.bias], [op.output])


def is_last_axis(axis: int, value) -> bool:
    x = ranked(value)
    return axis == -1 or (x is not None and axis == len(x.get_shape()) - 1)


@importer("Softmax")
def import_softmax(b, node, inputs):
    if inputs[0] is None:
        return None
    if b.opset >= 13:
        axis = b.attrs(node).get("axis", -1)
    else:
        # Before opset 13 Softmax flattens the dims from `axis` on: the same only
        # when axis is the last one.
        axis = b.attrs(node).get("axis", 1)
        if not is_last_axis(axis, inputs[0]):
            return None
    return b.create(SoftmaxOp, [inputs[0]], {"axis": i64_attr(axis)})


@exporter(SoftmaxOp)
def export_softmax(e, op: SoftmaxOp):
    if e.opset < 13 and not is_last_axis(op.axis_value, op.input):
        e.unsupported(
            op,
            f"Softmax before opset 13 ({e.opset}) only normalizes over the last axis",
        )
    e.node("Softmax", [op.input], [op.output], e.attrs(axis=op.axis_value))
