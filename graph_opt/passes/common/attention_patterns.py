"""Fuse scaled dot-product attention as exporters write it into nn.attention.

torch's exporters (TorchScript and dynamo, eager attention and
scaled_dot_product_attention) write softmax(q @ kᵀ * s + mask) @ v as a
matmul against a transposed key, the scale as a multiply or a division on
the scores or split as sqrt(s) over q and kᵀ, an optional additive mask, a
softmax over the last axis and a matmul with v.

`FuseAttention` is a `DFPatternRewrite`; the key side (a transpose to fold,
or dynamo's batched transpose between reshapes) is a pattern of its own,
`TransposedKeyPattern`.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import AnyFloat, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from graph_opt.dialects.nn.attention import AttentionOp, causal_mask
from graph_opt.dialects.nn.base import f32_attr, i64_array, i64_attr, int_value
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.elementwise import AddOp, DivOp, MulOp
from graph_opt.dialects.nn.linalg import MatMulOp, broadcasts_to
from graph_opt.dialects.nn.norm import SoftmaxOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.dialects.nn.shape_values import DimOf, dim_of, shape_elements
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.dialects.nn.tensor_ops import TransposeOp
from graph_opt.passes.common.activation_patterns import interior
from graph_opt.patterns.arithmetic import is_scaled, scalar
from graph_opt.patterns.builder import insert, nn
from graph_opt.patterns.matcher import Match
from graph_opt.patterns.pattern import DFPattern, is_op, wildcard
from graph_opt.patterns.rewrite import DFPatternRewrite
from graph_opt.statistics import Statistics, count

SWAP_LAST_TWO = (0, 1, 3, 2)


def scaled(value: SSAValue, chain: list[Operation]) -> tuple[SSAValue, float]:
    """`value` without single-use multiplies and divisions by scalar constants
    that keep its type, and their product; the ops are appended to `chain`."""
    factor = 1.0
    while True:
        op = value.owner
        if not isinstance(op, (MulOp, DivOp)) or not value.has_one_use():
            return value, factor
        if isinstance(op, MulOp) and scalar(op.lhs) is not None:
            base, constant = op.rhs, scalar(op.lhs)
        elif scalar(op.rhs) is not None:
            base, constant = op.lhs, scalar(op.rhs)
        else:
            return value, factor
        if base.type != value.type or constant == 0:
            return value, factor
        factor *= constant if isinstance(op, MulOp) else 1.0 / constant
        chain.append(op)
        value = base


def scores_product(value: SSAValue) -> MatMulOp | None:
    """The single-use matmul that `value` scales (or is)."""
    return interior(scaled(value, [])[0], MatMulOp)


def is_float_4d(value: SSAValue) -> bool:
    t = ranked(value)
    return (
        isinstance(t, TensorType)
        and isinstance(t.element_type, AnyFloat)
        and t.get_num_dims() == 4
    )


def untransposed_key(
    key_t: SSAValue,
) -> tuple[SSAValue, tuple[int, ...], TransposeOp | None]:
    """How to get the key [b, h, s, d] whose last two dims `key_t` swaps: a
    value, the perm to transpose it by, and the single-use transpose of
    `key_t` that this replaces (its perm composed with the swap), if any."""
    producer = interior(key_t, TransposeOp)
    if producer is None:
        return key_t, SWAP_LAST_TWO, None
    inner = TransposeOp.permutation(producer.properties, 4)
    return producer.input, tuple(inner[p] for p in SWAP_LAST_TWO), producer


def swaps_last_two(op: TransposeOp) -> bool:
    x = ranked(op.input)
    if x is None or x.get_num_dims() < 2:
        return False
    rank = x.get_num_dims()
    perm = TransposeOp.permutation(op.properties, rank)
    return perm == (*range(rank - 2), rank - 1, rank - 2)


def keeps_last_two(op: ReshapeOp) -> bool:
    x, out = ranked(op.input), ranked(op.output)
    if x is None or out is None or min(x.get_num_dims(), out.get_num_dims()) < 2:
        return False
    tail = x.get_shape()[-2:]
    return DYN not in tail and tail == out.get_shape()[-2:]


def same_dim(a: SSAValue, b: SSAValue, index: int) -> bool:
    """Whether dim `index` of `a` and of `b` are provably equal: equal static
    dims, the same dynamic dim (the shape analysis), or `a` a reshape of `b`
    whose target copies it (0) or names it."""
    da, db = ranked(a).get_shape()[index], ranked(b).get_shape()[index]
    if da == db != DYN:
        return True
    own = dim_of(b, index)
    if dim_of(a, index).same(own):
        return True
    op = a.owner
    if not isinstance(op, ReshapeOp) or op.input is not b:
        return False
    elements = shape_elements(op.shape)
    if elements is None or len(elements) <= index:
        return False
    element = elements[index]
    copies = element == 0 and not int_value(op.properties, "allowzero", 0)
    return copies or (isinstance(element, DimOf) and element.same(own))


def reshape_target_dim(value: SSAValue, index: int) -> list[object]:
    """The element `index` of the target shape of the reshape defining `value`, if known."""
    op = value.owner
    if not isinstance(op, ReshapeOp):
        return []
    elements = shape_elements(op.shape)
    return [] if elements is None or len(elements) <= index else [elements[index]]


def batched_swap_source(
    key_t: SSAValue, chain: list[Operation]
) -> tuple[SSAValue, float] | None:
    """The key [b, h, s, d] and a scale when `key_t` [b, h, d, s] is it with the
    last two dims swapped by a transpose between reshapes that regroup only the
    leading dims, with scalar scalings anywhere (dynamo's batched transpose:
    [b, h, s, d] -> [b*h, s, d] -> [b*h, d, s] -> [b, h, d, s]). The ops are
    appended to `chain`."""
    walked: list[Operation] = []
    value, factor, swapped = key_t, 1.0, False
    while value.has_one_use() or value is key_t:
        value, scale = scaled(value, walked)
        factor *= scale
        op = value.owner
        if isinstance(op, ReshapeOp) and keeps_last_two(op) and value.has_one_use():
            walked.append(op)
            value = op.input
        elif isinstance(op, TransposeOp) and not swapped and swaps_last_two(op):
            if not value.has_one_use():
                return None
            walked.append(op)
            value, swapped = op.input, True
        else:
            break
    if not swapped or not any(isinstance(op, ReshapeOp) for op in walked):
        return None
    key, k_t = ranked(value), ranked(key_t)
    if key is None or key.get_num_dims() != 4:
        return None
    if key.get_shape()[2:] != k_t.get_shape()[:1:-1]:
        return None
    if not all(same_dim(key_t, value, i) for i in (0, 1)):
        return None
    chain.extend(walked)
    return value, factor


class TransposedKeyPattern(DFPattern):
    """kᵀ [b, h, d, s] of a key [b, h, s, d]: any float 4-D value (transposed
    back by a swap), a single-use transpose of the key (its perm composed with
    the swap), or dynamo's batched transpose between reshapes of the leading
    dims. `match.facts[p]` is (key, perm to apply, extra scale)."""

    def match_in(self, m, value: SSAValue) -> bool:
        if not is_float_4d(value):
            return m.fail(self, value, "is not a float 4-D tensor")
        chain: list[Operation] = []
        batched = batched_swap_source(value, chain)
        if batched is not None:
            key, scale = batched
            fact = (key, (0, 1, 2, 3), scale)
        else:
            key, perm, replaced = untransposed_key(value)
            fact = (key, perm, 1.0)
            chain += [] if replaced is None else [replaced]
        for op in chain:
            m.cover(op)
        m.record(self, fact)
        return True

    def __str__(self) -> str:
        return "transposed_key()"


def float_4d(pattern: DFPattern) -> DFPattern:
    return pattern.where(is_float_4d, "float 4-D")


def last_axis_softmax(value: SSAValue) -> bool:
    return value.owner.axis_value in (-1, 3)  # type: ignore[union-attr]


class FuseAttention(DFPatternRewrite):
    """softmax(q @ kᵀ * s [+ mask]) @ v  =>  nn.attention(q, k, v [, mask]){scale = s}.

        q [* c]     kᵀ [* c]      (kᵀ: a transpose of k, dynamo's batched one, or any value)
            \\       /
             matmul
             [* c | / c]           (scalar constants; all of them multiply into s)
             [+ mask]              (any value of the scores' element type that broadcasts to them)
             softmax               (last axis)
                 \\
                  matmul  <-- v

    kᵀ's transpose is folded into the key's. Every interior value must have
    no user outside the chain.
    """

    def __init__(self):
        self.query, self.value, self.mask = wildcard(), wildcard(), wildcard()
        self.key = TransposedKeyPattern()
        self.q_scaled = is_scaled(float_4d(self.query))
        self.k_scaled = is_scaled(self.key)
        self.scores = is_scaled(is_op("matmul")(self.q_scaled, self.k_scaled))
        masked = (self.scores + self.mask).where(self.is_mask, "mask broadcasts")
        softmax = is_op("softmax")(masked | self.scores)
        self.softmax = float_4d(softmax.where(last_axis_softmax, "last axis"))
        self.pattern = is_op("matmul")(self.softmax, float_4d(self.value))

    def is_mask(self, add: SSAValue) -> bool:
        """Whether the mask has the scores' element type and broadcasts to them."""
        lhs, rhs = add.owner.operands  # type: ignore[union-attr]
        scores, mask = (lhs, rhs) if scores_product(lhs) is not None else (rhs, lhs)
        m, out = ranked(mask), ranked(add)
        return (
            scores.type == add.type
            and m is not None
            and out is not None
            and m.element_type == out.element_type
            and broadcasts_to(m.get_shape(), out.get_shape())
        )

    def rewrite(self, match: Match, rewriter: PatternRewriter) -> SSAValue | None:
        key, perm, k_extra = match.facts[self.key]
        if perm != (0, 1, 2, 3):
            key = nn.transpose(key, perm=list(perm))
        scale = match.facts[self.scores] * match.facts[self.q_scaled]
        scale *= match.facts[self.k_scaled] * k_extra
        operands = [match[self.query], key, match[self.value]]
        if self.mask in match:
            operands.append(match[self.mask])
        root = match.root
        attention = AttentionOp.create_inferred(
            operands, {"scale": f32_attr(scale)}, [root.type]
        )
        attention.location = root.owner.location  # type: ignore[union-attr]
        count("attention fused into nn.attention")
        return insert(attention).results[0]


ATTENTION_PATTERNS: tuple[type[RewritePattern], ...] = (FuseAttention,)
ATTENTION_STATISTICS: Statistics = {
    "attention fused into nn.attention": "Scaled dot-product attentions fused into one op"
}


class DecomposeAttention(RewritePattern):
    """nn.attention  =>  softmax(q @ kᵀ * scale [+ mask] [+ causal mask]) @ v in nn ops,
    for targets without an attention op (TOSA). Declines (leaves the op) when
    the scale or a causal mask's lengths depend on dynamic dims."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AttentionOp, rewriter: PatternRewriter):
        scale = op.scale_value()
        q_type, k_type = ranked(op.query), ranked(op.key)
        if scale is None or q_type is None or k_type is None:
            return
        lengths = (q_type.get_shape()[2], k_type.get_shape()[2])
        if op.causal and DYN in lengths:
            return
        element = q_type.element_type
        dtype = numpy_dtype(element)
        new: list[Operation] = []

        def emit(created: Operation) -> SSAValue:
            new.append(created)
            return created.results[0]

        def constant(array: np.ndarray) -> SSAValue:
            return emit(ConstantOp.from_array(array.astype(dtype), element))

        key_t = emit(
            TransposeOp.create_inferred([op.key], {"perm": i64_array(SWAP_LAST_TWO)})
        )
        scores = emit(MatMulOp.create_inferred([op.query, key_t]))
        scores = emit(MulOp.create_inferred([scores, constant(np.array(scale))]))
        if op.mask is not None:
            scores = emit(AddOp.create_inferred([scores, op.mask]))
        if op.causal:
            scores = emit(
                AddOp.create_inferred([scores, constant(causal_mask(*lengths))])
            )
        probs = emit(SoftmaxOp.create_inferred([scores], {"axis": i64_attr(-1)}))
        output = emit(
            MatMulOp.create_inferred([probs, op.value], None, [op.output.type])
        )
        rewriter.replace(op, new, [output])
