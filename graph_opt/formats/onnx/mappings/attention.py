"""ONNX export of nn.attention.

From opset 23 it is ai.onnx's Attention (unless its mask would need
broadcasting over the query positions, which onnxruntime refuses). Before, it is written out as the
nodes it fuses: Transpose of the key, MatMul, Mul by the scale, Add of the
mask, Softmax and MatMul. With the export's `contrib_ops`, an attention whose
query, key and value are head splits of constant projections of one input,
and whose result is merged back into [batch, seq, hidden], is onnxruntime's
com.microsoft Attention with the packed QKV weights: one node in place of the
projections, head reshapes, transposes and the attention itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation, SSAValue

from graph_opt.dialects.nn.attention import AttentionOp, causal_mask
from graph_opt.dialects.nn.base import int_value, str_value
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.fused import FusedMatMulOp
from graph_opt.dialects.nn.linalg import MatMulOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.dialects.nn.tensor_ops import SplitOp, TransposeOp
from graph_opt.formats.onnx.op_table import exporter
from graph_opt.passes.common.activation_patterns import sole_user
from graph_opt.passes.common.attention_patterns import (
    SWAP_LAST_TWO,
    reshape_target_dim,
    same_dim,
)

ATTENTION_OPSET = 23
HEADS_FIRST = (0, 2, 1, 3)
"""[batch, seq, heads, dim] <-> [batch, heads, seq, dim]."""


@exporter(AttentionOp)
def export_attention(e, op: AttentionOp):
    if e.contrib_ops and export_packed(e, op):
        return
    scale = op.scale_value()
    if scale is None:
        e.unsupported(op, "the default scale of a dynamic head_dim has no ONNX form")
    if e.opset >= ATTENTION_OPSET and mask_fits_attention(op):
        attrs = e.attrs(scale=scale, is_causal=int(op.causal) or None)
        e.node("Attention", list(op.operands), [op.output], attrs)
        return
    export_decomposed(e, op, scale)


def mask_fits_attention(op: AttentionOp) -> bool:
    """Whether onnxruntime's Attention takes the mask: it wants its last two
    dims to be exactly [q_seq, kv_seq] (ONNX would broadcast them)."""
    if op.mask is None:
        return True
    mask, q, k = (ranked(v) for v in (op.mask, op.query, op.key))
    if mask is None or q is None or k is None:
        return False
    wanted = (q.get_shape()[2], k.get_shape()[2])
    return DYN not in wanted and mask.get_shape()[-2:] == wanted


def export_decomposed(e, op: AttentionOp, scale: float) -> None:
    """softmax(q @ kᵀ * scale + mask) @ v as standard nodes."""
    dtype = e.numpy_dtype(op.query)
    hint = e.name(op.output)

    def step(op_type: str, *inputs: str, **attrs) -> str:
        out = e.fresh(f"{hint}_{op_type.lower()}")
        e.node(op_type, list(inputs), [out], attrs)
        return out

    key_t = transposed_key(e, op, step)
    scores = step("MatMul", e.name(op.query), key_t)
    if scale != 1.0:
        scores = step("Mul", scores, e.initializer(np.array(scale, dtype), "scale"))
    if op.mask is not None:
        scores = step("Add", scores, e.name(op.mask))
    if op.causal:
        q_len, kv_len = (ranked(v).get_shape()[2] for v in (op.query, op.key))
        if DYN in (q_len, kv_len):
            e.unsupported(
                op, f"a causal mask of dynamic length needs opset {ATTENTION_OPSET}"
            )
        mask = e.initializer(causal_mask(q_len, kv_len).astype(dtype), "causal_mask")
        scores = step("Add", scores, mask)
    probs = step("Softmax", scores, axis=-1)
    e.node("MatMul", [probs, op.value], [op.output])


def transposed_key(e, op: AttentionOp, step) -> str:
    """kᵀ; from the input of the key's transpose when the attention is its only
    reader (one Transpose instead of two)."""
    producer = op.key.owner
    if not isinstance(producer, TransposeOp) or not op.key.has_one_use():
        return step("Transpose", e.name(op.key), perm=[0, 1, 3, 2])
    inner = TransposeOp.permutation(producer.properties, 4)
    perm = [inner[p] for p in SWAP_LAST_TWO]
    e.supersede([op.key])
    if perm == [0, 1, 2, 3]:
        return e.name(producer.input)
    return step("Transpose", e.name(producer.input), perm=perm)


@dataclass
class Projection:
    """A head split of columns of a constant projection `x @ weight + bias`."""

    input: SSAValue
    weight: np.ndarray
    bias: np.ndarray
    heads: int
    head_dim: int


def export_packed(e, op: AttentionOp) -> bool:
    """`op` as com.microsoft Attention with packed weights; whether it could be
    (float32 only: the kernel onnxruntime's CPU provider has)."""
    if op.mask is not None or e.numpy_dtype(op.query) != np.float32:
        return False
    merge = head_merge(op.output)
    projections = [head_split_projection(v) for v in (op.query, op.key, op.value)]
    if merge is None or None in projections:
        return False
    q, k, v = projections
    if q.input != k.input or q.input != v.input or q.head_dim != k.head_dim:
        return False
    if not q.heads == k.heads == v.heads:
        return False
    scale = op.scale_value()
    weight = np.concatenate([p.weight for p in projections], axis=1)
    bias = np.concatenate([p.bias for p in projections])
    hidden = [p.heads * p.head_dim for p in projections]
    attrs = e.attrs(
        num_heads=q.heads,
        scale=scale,
        unidirectional=int(op.causal) or None,
        qkv_hidden_sizes=hidden if hidden[1] != hidden[2] else None,
    )
    inputs = [
        e.name(q.input),
        e.initializer(weight, "qkv_weight"),
        e.initializer(bias, "qkv_bias"),
    ]
    merged = merge[-1]
    e.name_results(merged)
    e.contrib_node("Attention", inputs, [merged.results[0]], attrs)
    e.absorb(merge)
    e.supersede([op.query, op.key, op.value])
    return True


def head_merge(value: SSAValue) -> list[Operation] | None:
    """The transpose and reshape merging `value` [b, h, s, d] into [b, s, h*d], when they are its only users."""
    transpose = sole_user(value)
    if not isinstance(transpose, TransposeOp) or not is_heads_swap(transpose):
        return None
    merged = transpose.output
    reshape = sole_user(merged)
    if not isinstance(reshape, ReshapeOp) or heads_of(reshape) is None:
        return None
    return [transpose, reshape]


def is_heads_swap(op: TransposeOp) -> bool:
    x = ranked(op.input)
    return (
        x is not None
        and x.get_num_dims() == 4
        and TransposeOp.permutation(op.properties, 4) == HEADS_FIRST
    )


def heads_of(reshape: ReshapeOp) -> tuple[int, int] | None:
    """(heads, head_dim) when `reshape` splits [b, s, h*d] into [b, s, h, d] or
    merges them back: the batch and sequence dims provably kept (the shape
    analysis), h and d static, and the hidden dim h*d or inferred (-1)."""
    if ranked(reshape.input) is None or ranked(reshape.output) is None:
        return None
    ranks = (
        ranked(reshape.input).get_num_dims(),
        ranked(reshape.output).get_num_dims(),
    )
    if ranks not in ((3, 4), (4, 3)):
        return None
    merged, split = (
        (reshape.input, reshape.output)
        if ranks[0] == 3
        else (reshape.output, reshape.input)
    )
    heads, head_dim = ranked(split).get_shape()[2:]
    hidden = ranked(merged).get_shape()[2]
    if DYN in (heads, head_dim):
        return None
    if hidden != heads * head_dim and not (
        hidden == DYN and ranks[1] == 3 and reshape_target_dim(merged, 2) == [-1]
    ):
        return None
    if not all(same_dim(reshape.output, reshape.input, i) for i in (0, 1)):
        return None
    return heads, head_dim


def head_split_projection(value: SSAValue) -> Projection | None:
    """`value` as transpose(reshape(columns of x @ W + b)) with constant W and b."""
    transpose = value.owner
    if not isinstance(transpose, TransposeOp) or not is_heads_swap(transpose):
        return None
    reshape = transpose.input.owner
    if not isinstance(reshape, ReshapeOp):
        return None
    split_dims = heads_of(reshape)
    if split_dims is None:
        return None
    columns = projection_columns(reshape.input)
    if columns is None:
        return None
    return Projection(*columns, *split_dims)


def projection_columns(value: SSAValue):
    """(x, W, b) when `value` is x @ W (+ b) with constant W and b, or a
    last-axis split result of one, with W and b cut to its columns."""
    start, width = 0, None
    split = value.owner
    if isinstance(split, SplitOp):
        rank = ranked(split.input).get_num_dims() if ranked(split.input) else 0
        axis = int_value(split.properties, "axis", 0) % max(rank, 1)
        if axis != rank - 1:
            return None
        sizes = split.split.get_values()
        index = value.index
        start, width = sum(sizes[:index]), sizes[index]
        value = split.input
    matmul = value.owner
    if isinstance(matmul, FusedMatMulOp):
        if str_value(matmul.properties, "activation", "none") != "none":
            return None
    elif not isinstance(matmul, MatMulOp):
        return None
    weight = constant_value(matmul.rhs)
    bias = constant_value(matmul.bias) if getattr(matmul, "bias", None) else None
    x = ranked(matmul.lhs)
    if weight is None or weight.ndim != 2 or x is None or x.get_num_dims() != 3:
        return None
    if bias is None:
        if getattr(matmul, "bias", None) is not None:
            return None
        bias = np.zeros(weight.shape[1], weight.dtype)
    end = weight.shape[1] if width is None else start + width
    return matmul.lhs, weight[:, start:end], bias[start:end]
