"""ONNX export of the fused ops as the standard nodes they fuse (Conv + Relu, MatMul + Add + Clip, ...).

Standard ONNX runs on every runtime; onnxruntime fuses the chains again itself.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from graph_opt.dialects.nn.fused import FusedActivation, FusedConvOp, FusedMatMulOp
from graph_opt.frontend.onnx_op_table import check_channels_first, exporter

FUSION_PROPS = ("activation", "activation_params")


def export_activation(e, op: FusedActivation, value: str, output: SSAValue) -> None:
    """The ONNX node computing `op`'s activation of `value` into `output`."""
    name, params = op.activation_name, op.activation_values
    if name in ("relu", "sigmoid", "tanh"):
        e.node(
            {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh"}[name],
            [value],
            [output],
        )
    elif name == "leaky_relu":
        e.node("LeakyRelu", [value], [output], e.attrs(alpha=params[0]))
    else:
        low, high = (0.0, 6.0) if name == "relu6" else params
        if e.opset < 11:
            e.node("Clip", [value], [output], e.attrs(min=low, max=high))
        else:
            dtype = e.numpy_dtype(output)
            bounds = [
                e.initializer(np.array(b, dtype), "clip_bound") for b in (low, high)
            ]
            e.node("Clip", [value, *bounds], [output])


def export_with_activation(e, op, op_type: str, inputs: list, attrs) -> None:
    """`op_type` then `op`'s activation; the first node writes `op`'s output when there is none."""
    if op.activation_name == "none":
        e.node(op_type, inputs, [op.output], attrs)
        return
    unfused = e.fresh(f"{e.name(op.output)}_{op_type.lower()}")
    e.node(op_type, inputs, [unfused], attrs)
    export_activation(e, op, unfused, op.output)


@exporter(FusedConvOp)
def export_fused_conv(e, op: FusedConvOp):
    check_channels_first(e, op)
    props = {
        k: v
        for k, v in op.properties.items()
        if k not in ("data_layout", *FUSION_PROPS)
    }
    export_with_activation(e, op, "Conv", list(op.operands), e.props_to_attrs(props))


@exporter(FusedMatMulOp)
def export_fused_matmul(e, op: FusedMatMulOp):
    if op.bias is None:
        export_with_activation(e, op, "MatMul", [op.lhs, op.rhs], [])
        return
    product = e.fresh(f"{e.name(op.output)}_matmul")
    e.node("MatMul", [op.lhs, op.rhs], [product])
    export_with_activation(e, op, "Add", [product, op.bias], [])
