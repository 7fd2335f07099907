"""Lowering of nn.top_k to TOSA, which has no sort: ranks by counting.

Along the axis (moved last, the other dims flattened to R rows of N), entry i's
rank is the number of entries j that come before it: larger (smaller for
largest = 0), or equal with j < i, which is top_k's stable order. Output
position p takes the i of rank p: a one-hot [R, k, N] of rank == p, summed
against the positions 0..N-1, gives the indices, and tosa.gather the values.
Exact for every value but NaN (NaN compares false both ways, so ranks collide);
it costs R * N * N comparisons.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects import tosa
from xdsl.dialects.builtin import i1, i32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.index_ops import TopKOp
from graph_opt.dialects.nn.shapes import normalize_axis
from graph_opt.lowering.lowering_pattern import LoweringPattern
from graph_opt.lowering.tosa_builder import TosaBuilder, element_of, shape_of
from graph_opt.lowering.tosa_compare import comparable, elementwise
from graph_opt.lowering.tosa_index import gather
from graph_opt.lowering.tosa_quant import cast
from graph_opt.lowering.tosa_tensor import reduce

MAX_RANK_MATRIX = 1 << 26
"""The most comparisons (R * N * N) the lowering writes out."""


def stable_ranks(b: TosaBuilder, rows: SSAValue, largest: bool) -> SSAValue:
    """[R, 1, N] i32: how many entries of each row come before each entry."""
    count, size = shape_of(rows)
    mine = b.reshape(rows, (count, size, 1))
    other = b.reshape(rows, (count, 1, size))
    pair = [other, mine] if largest else [mine, other]
    better = elementwise(b, tosa_ext.GreaterOp, pair, i1)
    equal = elementwise(b, tosa_ext.EqualOp, [other, mine], i1)
    earlier = b.const(np.tri(size, size, -1, dtype=bool)[None])
    tie = elementwise(b, tosa_ext.LogicalAndOp, [equal, earlier], i1)
    before = elementwise(b, tosa_ext.LogicalOrOp, [better, tie], i1)
    ranks = reduce(b, tosa.ReduceSumOp, cast(b, before, i32), (2,))
    return b.reshape(ranks, (count, 1, size))


def positions_of_ranks(b: TosaBuilder, ranks: SSAValue, k: int) -> SSAValue:
    """[R, k] i32: the index of the entry of rank p, for p < k."""
    count, _, size = shape_of(ranks)
    wanted = b.const(np.arange(k, dtype=np.int32).reshape(1, k, 1))
    hot = elementwise(b, tosa_ext.EqualOp, [ranks, wanted], i1)
    positions = b.const(np.arange(size, dtype=np.int32).reshape(1, 1, size))
    zero = b.const(np.zeros((1, 1, 1), np.int32))
    picked = elementwise(b, tosa_ext.SelectOp, [hot, positions, zero], i32)
    return b.reshape(reduce(b, tosa.ReduceSumOp, picked, (2,)), (count, k))


class LowerTopK(LoweringPattern):
    """nn.top_k of floats, i32 or i64 -> ranks by comparison, indices by one-hot
    sum, values by tosa.gather (the axis moved last and back by transposes)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, TopKOp):
            return
        x = op.input
        shape = shape_of(x)
        axis = normalize_axis(int_value(op.properties, "axis", -1), len(shape))
        k, size = op.k.value.data, shape[axis]
        count = math.prod(shape) // size if size else 0
        reason = self.unsupported(x, k, count, size)
        if reason:
            self.decline(op, reason)
            return
        b = TosaBuilder()
        to_last = [d for d in range(len(shape)) if d != axis] + [axis]
        back = [int(d) for d in np.argsort(to_last)]
        rows = b.reshape(b.transpose(x, to_last), (count, size))
        largest = bool(int_value(op.properties, "largest", 1))
        indices = positions_of_ranks(b, stable_ranks(b, rows, largest), k)
        values = gather(b, b.reshape(rows, (count, size, 1)), indices)
        outer = [shape[d] for d in to_last[:-1]]
        values, indices = (
            b.transpose(b.reshape(v, (*outer, k)), back) for v in (values, indices)
        )
        results = [values, cast(b, indices, element_of(op.indices))]
        rewriter.replace(op, b.ops, results)

    @staticmethod
    def unsupported(x: SSAValue, k: int, count: int, size: int) -> str | None:
        if not comparable(x):
            return "TOSA compares floats, i32 and i64 only"
        if k == 0:
            return "top_k with k = 0 has an empty result, which TOSA cannot hold"
        if count * size * size > MAX_RANK_MATRIX:
            return (
                f"ranking {count} x {size} entries takes {count * size * size} "
                f"comparisons, more than {MAX_RANK_MATRIX}"
            )
        return None
