"""Scaled dot-product attention over heads."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import (
    GENERIC_FORMAT,
    NNOperation,
    check_flag,
    float_value,
)
from graph_opt.dialects.nn.linalg import (
    broadcasts_to,
    check_contraction,
    check_same_element_type,
)
from graph_opt.dialects.nn.shapes import DYN, broadcast_shapes, ranked, tensor_type


def default_scale(head_dim: int) -> float | None:
    """1/sqrt(head_dim), the scale when none is given (None for a dynamic dim)."""
    return None if head_dim == DYN else 1.0 / math.sqrt(head_dim)


def causal_mask(q_len: int, kv_len: int) -> np.ndarray:
    """0 where query i may see key j (j <= i), -inf elsewhere."""
    allowed = np.tril(np.ones((q_len, kv_len), bool))
    return np.where(allowed, 0.0, -np.inf)


@irdl_op_definition
class AttentionOp(NNOperation):
    """softmax(q @ kᵀ * scale + mask) @ v, per batch and head.

    q is [batch, heads, q_seq, head_dim], k [batch, heads, kv_seq, head_dim],
    v [batch, heads, kv_seq, v_dim]; batch and head dims broadcast as in
    nn.matmul. The optional `mask` is added to the scaled scores and
    broadcasts to [batch, heads, q_seq, kv_seq]. `scale` defaults to
    1/sqrt(head_dim); with `is_causal` = 1, query i attends to keys 0..i only
    (the upper-left aligned triangle). The result is [batch, heads, q_seq, v_dim].
    """

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    name = "nn.attention"
    query = operand_def()
    key = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    output = result_def()
    scale = opt_prop_def(FloatAttr)
    is_causal = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @property
    def causal(self) -> bool:
        return check_flag(self.properties, "is_causal")

    def scale_value(self) -> float | None:
        """The scale, or None when it is the default and head_dim is dynamic."""
        if "scale" in self.properties:
            return float_value(self.properties, "scale", 1.0)
        q = ranked(self.query)
        return None if q is None else default_scale(q.get_shape()[-1])

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        check_flag(props, "is_causal")
        q, k, v = (ranked(x) for x in operands[:3])
        if q is None or k is None or v is None:
            return None
        check_same_element_type(q, k, v)
        shapes = [t.get_shape() for t in (q, k, v)]
        if any(len(s) != 4 for s in shapes):
            raise VerifyException(
                f"attention needs 4-D query, key and value, got ranks {[len(s) for s in shapes]}"
            )
        (qs, ks, vs) = shapes
        check_contraction(qs[3], ks[3])
        if DYN not in (ks[2], vs[2]) and ks[2] != vs[2]:
            raise VerifyException(
                f"key and value sequence lengths differ: {ks[2]} and {vs[2]}"
            )
        batch = broadcast_shapes(broadcast_shapes(qs[:2], ks[:2]), vs[:2])
        scores = (*batch, qs[2], ks[2])
        mask = ranked(operands[3]) if len(operands) > 3 else None
        if mask is not None:
            check_same_element_type(q, mask)
            if not broadcasts_to(mask.get_shape(), scores):
                raise VerifyException(
                    f"mask of shape {list(mask.get_shape())} does not broadcast to the scores {list(scores)}"
                )
        return [tensor_type(q.element_type, (*batch, qs[2], vs[3]))]
