"""ONNX export of the fused ops as the standard nodes they fuse (Conv + Relu, MatMul + Add + Clip, ...).

A 2-D matmul with a bias is one Gemm (then its activation).

Standard ONNX runs on every runtime; onnxruntime fuses the chains again itself.
With the export's `contrib_ops`, a fused op that one of onnxruntime's
com.microsoft ops computes exactly is written as it: FusedConv (Conv with Relu,
Sigmoid, Tanh, LeakyRelu, Clip or HardSigmoid, the activations its CPU kernel
takes), FusedGemm (a 2-D MatMul with bias and one of Relu, Sigmoid, Tanh,
LeakyRelu, HardSigmoid), BiasGelu / FastGelu (a MatMul's bias add and Gelu),
QuickGelu (SiLU); anything else is written as standard nodes.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from graph_opt.dialects.nn.fused import FusedActivation, FusedConvOp, FusedMatMulOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.formats.onnx.mappings.elementwise import (
    emit_gelu,
    emit_hard_swish,
    emit_silu,
)
from graph_opt.formats.onnx.op_table import check_channels_first, exporter

FUSION_PROPS = ("activation", "activation_params")

CONTRIB_ACTIVATIONS = {
    "relu": "Relu",
    "sigmoid": "Sigmoid",
    "tanh": "Tanh",
    "leaky_relu": "LeakyRelu",
    "relu6": "Clip",
    "clip": "Clip",
    "hard_sigmoid": "HardSigmoid",
}
"""Fused activations as onnxruntime's FusedConv names them (its CPU kernel takes these)."""

GEMM_ACTIVATIONS = ("relu", "sigmoid", "tanh", "leaky_relu", "hard_sigmoid")
"""The fused activations FusedGemm's CPU kernel computes (it has no Clip)."""


def export_activation(e, op: FusedActivation, value: str, output: SSAValue) -> None:
    """The ONNX nodes computing `op`'s activation of `value` into `output`."""
    name, params = op.activation_name, op.activation_values
    if name in ("relu", "sigmoid", "tanh"):
        e.node(CONTRIB_ACTIVATIONS[name], [value], [output])
    elif name == "leaky_relu":
        e.node("LeakyRelu", [value], [output], e.attrs(alpha=params[0]))
    elif name == "hard_sigmoid":
        alpha, beta = params
        e.node("HardSigmoid", [value], [output], e.attrs(alpha=alpha, beta=beta))
    elif name == "hard_swish":
        emit_hard_swish(e, value, output)
    elif name == "silu":
        emit_silu(e, value, output)
    elif name in ("gelu", "gelu_tanh"):
        emit_gelu(e, value, output, "tanh" if name == "gelu_tanh" else "none")
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


def contrib_activation_params(op: FusedActivation) -> list[float]:
    """FusedConv's activation_params: Clip's bounds, LeakyRelu's alpha, HardSigmoid's alpha and beta."""
    return [0.0, 6.0] if op.activation_name == "relu6" else list(op.activation_values)


def export_with_activation(e, op, op_type: str, inputs: list, attrs) -> None:
    """`op_type` then `op`'s activation; the first node writes `op`'s output when there is none."""
    (output,) = op.results  # (IRDL's `op.output` costs more)
    if op.activation_name == "none":
        e.node(op_type, inputs, [output], attrs)
        return
    unfused = e.fresh(f"{e.name(output)}_{op_type.lower()}")
    e.node(op_type, inputs, [unfused], attrs)
    export_activation(e, op, unfused, output)


@exporter(FusedConvOp)
def export_fused_conv(e, op: FusedConvOp):
    check_channels_first(e, op)
    props = {
        k: v
        for k, v in op.properties.items()
        if k not in ("data_layout", *FUSION_PROPS)
    }
    attrs = e.props_to_attrs(props)
    if e.contrib_ops and op.activation_name in CONTRIB_ACTIVATIONS:
        attrs += e.attrs(
            activation=CONTRIB_ACTIVATIONS[op.activation_name],
            activation_params=contrib_activation_params(op) or None,
        )
        e.contrib_node("FusedConv", list(op.operands), [op.output], attrs)
        return
    export_with_activation(e, op, "Conv", list(op.operands), attrs)


def is_gemm(op: FusedMatMulOp) -> bool:
    """Whether FusedGemm computes `op`: 2-D operands, a bias, an activation it has."""
    return is_2d_with_bias(op) and op.activation_name in GEMM_ACTIVATIONS


def export_contrib_matmul(e, op: FusedMatMulOp) -> bool:
    """`op` as FusedGemm, or MatMul then BiasGelu / FastGelu; whether it was."""
    name = op.activation_name
    if is_gemm(op):
        params = zip(("activation_alpha", "activation_beta"), op.activation_values)
        attrs = e.attrs(activation=CONTRIB_ACTIVATIONS[name], **dict(params))
        e.contrib_node("FusedGemm", list(op.operands), [op.output], attrs)
        return True
    if name in ("gelu", "gelu_tanh") and op.bias is not None:
        product = e.fresh(f"{e.name(op.output)}_matmul")
        e.node("MatMul", [op.lhs, op.rhs], [product])
        gelu = "FastGelu" if name == "gelu_tanh" else "BiasGelu"
        e.contrib_node(gelu, [product, op.bias], [op.output])
        return True
    return False


GEMM_OPSET = 7
"""Gemm's C broadcasts (unidirectionally) from opset 7."""


def is_2d_with_bias(op: FusedMatMulOp) -> bool:
    ranks = [getattr(ranked(v), "get_num_dims", lambda: None)() for v in op.operands]
    return op.bias is not None and ranks[:2] == [2, 2]


@exporter(FusedMatMulOp)
def export_fused_matmul(e, op: FusedMatMulOp):
    if e.contrib_ops and export_contrib_matmul(e, op):
        return
    if is_2d_with_bias(op) and e.opset >= GEMM_OPSET:
        export_with_activation(e, op, "Gemm", list(op.operands), [])
        return
    if op.bias is None:
        export_with_activation(e, op, "MatMul", [op.lhs, op.rhs], [])
        return
    product = e.fresh(f"{e.name(op.output)}_matmul")
    e.node("MatMul", [op.lhs, op.rhs], [product])
    export_with_activation(e, op, "Add", [product, op.bias], [])
