"""Patterns on transposes that exporters write around attention heads: a
transpose that only moves size-1 dims is a reshape (which then merges with the
reshapes around it), and a transpose of a transpose is one transpose."""

from __future__ import annotations

import numpy as np
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.dialects.nn.tensor_ops import TransposeOp


def unit_moving_target(
    shape: tuple[int, ...], perm: tuple[int, ...]
) -> list[int] | None:
    """The reshape target that computes transposing `shape` by `perm`, when
    `perm` keeps the order of the dims that may not be 1; None otherwise.

    Dynamic dims are written -1 when there is one, else 0 (a copy) where the
    transpose keeps them in place and -1 for at most one other.
    """
    moved = [p for p in perm if shape[p] != 1]
    if moved != sorted(moved):
        return None  # the elements change order
    if 0 in shape:
        return None  # a 0 in the target would copy, not size
    dynamic = [i for i, p in enumerate(perm) if shape[p] == DYN]
    if len(dynamic) == 1:
        return [-1 if d == DYN else d for d in (shape[p] for p in perm)]
    target = [
        shape[p] if shape[p] != DYN else 0 if p == i else -1 for i, p in enumerate(perm)
    ]
    return target if target.count(-1) <= 1 else None


class TransposeOfUnitDimsToReshape(RewritePattern):
    """A transpose whose dims other than size-1 ones keep their order is a
    reshape to its result shape: [b, 1, h, d] by (0, 2, 1, 3) is [b, h, 1, d].

    As in `ReshapeToKnownTarget`, a -1 next to a copied dynamic dim assumes
    the input is not empty.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter):
        x = ranked(op.input)
        if x is None:
            return
        shape = x.get_shape()
        perm = tuple(op.permutation(op.properties, len(shape)))
        if perm == tuple(range(len(shape))):
            return  # RemoveIdentityTranspose drops it
        target = unit_moving_target(shape, perm)
        if target is None:
            return  # the transpose moves data
        constant = ConstantOp.from_array(np.array(target, np.int64))
        reshape = ReshapeOp.create_inferred(
            [op.input, constant.output], {}, [op.output.type]
        )
        rewriter.replace(op, [constant, reshape], reshape.results)


class MergeTransposes(RewritePattern):
    """transpose(transpose(x, p), q) is transpose(x, [p[i] for i in q])."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter):
        inner = op.input.owner
        x = ranked(op.input)
        if not isinstance(inner, TransposeOp) or x is None:
            return
        rank = x.get_num_dims()
        outer_perm = op.permutation(op.properties, rank)
        inner_perm = inner.permutation(inner.properties, rank)
        perm = [inner_perm[i] for i in outer_perm]
        merged = TransposeOp.create_inferred(
            [inner.input], {"perm": i64_array(perm)}, [op.output.type]
        )
        rewriter.replace(op, merged)


TRANSPOSE_PATTERNS: tuple[type[RewritePattern], ...] = (
    TransposeOfUnitDimsToReshape,
    MergeTransposes,
)
"""Every transpose rewrite; instantiate them for a walker."""
