"""Lowering of gather, tile and expand to tosa.gather and tosa.tile.

nn.gather along any axis is TOSA's [N, K, C] gather: the dims before the axis
become N, the axis K, the dims after it C (reshapes only, no transposes), and
the indices, flattened to [1, W] in i32 with negative ones wrapped, are tiled
over N. nn.tile and nn.expand (constant shape operand, static result) become
tosa.tile; an expand that only adds leading dims or broadcasts size-1 dims is
a tile of the input brought to the result's rank.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects import tosa
from xdsl.dialects.builtin import IntegerType, TensorType, i1, i32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.shapes import normalize_axis
from graph_opt.dialects.nn.tensor_ops import ExpandOp, GatherOp, TileOp
from graph_opt.lowering.lowering_pattern import LoweringPattern, constant_array
from graph_opt.lowering.tosa_builder import TosaBuilder, element_of, shape_of


def tile(b: TosaBuilder, x: SSAValue, multiples: list[int]) -> SSAValue:
    if all(m == 1 for m in multiples):
        return x
    shape = [d * m for d, m in zip(shape_of(x), multiples)]
    return b.add(
        tosa_ext.TileOp.build(
            operands=[x, b.const_shape(multiples)],
            result_types=[TensorType(element_of(x), shape)],
        )
    )


def i32_indices(b: TosaBuilder, indices: SSAValue, size: int) -> SSAValue | None:
    """Indices as i32 in [0, size): folded when constant, else cast and wrapped
    (x < 0 ? x + size : x); None when they are not integers."""
    element = element_of(indices)
    if not isinstance(element, IntegerType):
        return None
    known = constant_array(indices)
    if known is not None:
        return b.const(np.where(known < 0, known + size, known).astype(np.int32))
    if element != i32:
        indices = b.add(
            tosa_ext.CastOp.build(
                operands=[indices], result_types=[TensorType(i32, shape_of(indices))]
            )
        )
    negative = b.add(
        tosa_ext.GreaterOp.build(
            operands=[b.const_like(indices, 0), indices],
            result_types=[TensorType(i1, shape_of(indices))],
        )
    )
    wrapped = b.binary(tosa.AddOp, indices, b.const_like(indices, size))
    return b.add(
        tosa_ext.SelectOp.build(
            operands=[negative, wrapped, indices], result_types=[indices.type]
        )
    )


class LowerGather(LoweringPattern):
    """nn.gather (any axis) -> reshape to [N, K, C], tosa.gather, reshape back."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, GatherOp):
            return
        x, indices = op.data, op.indices
        shape = shape_of(x)
        axis = normalize_axis(int_value(op.properties, "axis", 0), len(shape))
        outer, size = math.prod(shape[:axis]), shape[axis]
        inner = math.prod(shape[axis + 1 :])
        count = math.prod(shape_of(indices))
        b = TosaBuilder()
        wrapped = i32_indices(b, indices, size)
        if wrapped is None:
            self.decline(op, "gather indices must be integers")
            return
        flat = tile(b, b.reshape(wrapped, (1, count)), [outer, 1])
        values = b.reshape(x, (outer, size, inner))
        gathered = b.add(
            tosa_ext.GatherOp.build(
                operands=[values, flat],
                result_types=[TensorType(element_of(x), (outer, count, inner))],
            )
        )
        rewriter.replace(op, b.ops, [b.reshape(gathered, shape_of(op.output))])


class LowerTile(LoweringPattern):
    """nn.tile (constant repeats) and nn.expand (constant shape) -> tosa.tile."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, TileOp | ExpandOp):
            return
        x, out = op.operands[0], shape_of(op.results[0])
        if constant_array(op.operands[1]) is None:
            self.decline(op, f"{op.name} needs a constant shape operand")
            return
        b = TosaBuilder()
        x = b.to_rank(x, len(out))
        multiples = [o // d for o, d in zip(out, shape_of(x))]
        rewriter.replace(op, b.ops, [tile(b, x, multiples)])
