"""Lowering of gather, gather_nd, tile and expand to tosa.gather and tosa.tile.

nn.gather along any axis is TOSA's [N, K, C] gather: the dims before the axis
become N, the axis K, the dims after it C (reshapes only, no transposes), and
the indices, flattened to [1, W] in i32 with negative ones wrapped, are tiled
over N. nn.gather_nd gathers rows of the data flattened over the indexed dims,
nn.gather_elements single elements of the data flattened to [1, size, 1].
Boolean data is gathered as i8. nn.tile and nn.expand (constant shape operand, static result) become
tosa.tile; an expand that only adds leading dims or broadcasts size-1 dims is
a tile of the input brought to the result's rank.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects import tosa
from xdsl.dialects.builtin import IntegerType, TensorType, i1, i8, i32, i64
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.index_ops import GatherElementsOp, GatherNdOp
from graph_opt.dialects.nn.shapes import normalize_axis
from graph_opt.dialects.nn.tensor_ops import ExpandOp, GatherOp, TileOp
from graph_opt.lowering.lowering_pattern import LoweringPattern, constant_array
from graph_opt.lowering.tosa_builder import TosaBuilder, element_of, shape_of
from graph_opt.lowering.tosa_quant import cast
from graph_opt.lowering.tosa_tensor import reduce


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
        gathered = gather(b, b.reshape(x, (outer, size, inner)), flat)
        rewriter.replace(op, b.ops, [b.reshape(gathered, shape_of(op.output))])


def gather(b: TosaBuilder, values: SSAValue, indices: SSAValue) -> SSAValue:
    """tosa.gather of [N, K, C] values at [N, W] i32 indices; i1 values go
    through i8 (TOSA gathers no booleans; i8 to i1 is x != 0), i64 values
    take i64 indices (IREE's int64 extension)."""
    element = element_of(values)
    n, _, c = shape_of(values)
    if element == i1:
        values = cast(b, values, i8)
    if element == i64:
        indices = cast(b, indices, i64)
    gathered = b.add(
        tosa_ext.GatherOp.build(
            operands=[values, indices],
            result_types=[TensorType(element_of(values), (n, shape_of(indices)[1], c))],
        )
    )
    return cast(b, gathered, i1) if element == i1 else gathered


class LowerGatherNd(LoweringPattern):
    """nn.gather_nd (batch_dims 0) -> tosa.gather on the data as [1, P, C], P the
    first K dims (K = the indices' last dim), at each K-tuple's row-major index:
    folded when the indices are constant, else sum(wrapped index * stride) in i32."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, GatherNdOp):
            return
        if int_value(op.properties, "batch_dims", 0):
            self.decline(op, "only gather_nd with batch_dims 0 lowers to TOSA")
            return
        x, indices = op.data, op.indices
        shape, index_shape = shape_of(x), shape_of(indices)
        depth = index_shape[-1]
        sizes = shape[:depth]
        count = math.prod(index_shape[:-1])
        b = TosaBuilder()
        known = constant_array(indices)
        if known is not None:
            known = np.where(known < 0, known + np.array(sizes), known)
            linear = b.const(
                np.ravel_multi_index(tuple(np.moveaxis(known, -1, 0)), sizes)
                .reshape(1, count)
                .astype(np.int32)
            )
        elif isinstance(element_of(indices), IntegerType):
            linear = self.linear_index(b, indices, sizes, count)
        else:
            self.decline(op, "gather_nd indices must be integers")
            return
        values = b.reshape(x, (1, math.prod(sizes), math.prod(shape[depth:])))
        gathered = gather(b, values, linear)
        rewriter.replace(op, b.ops, [b.reshape(gathered, shape_of(op.output))])

    @staticmethod
    def linear_index(
        b: TosaBuilder, indices: SSAValue, sizes: tuple[int, ...], count: int
    ) -> SSAValue:
        """[1, count] i32 row-major indices of the K-tuples (negative ones wrapped)."""
        depth = len(sizes)
        tuples = b.reshape(indices, (count, depth))
        if element_of(tuples) != i32:
            tuples = cast(b, tuples, i32)
        negative = b.add(
            tosa_ext.GreaterOp.build(
                operands=[b.const_like(tuples, 0), tuples],
                result_types=[TensorType(i1, shape_of(tuples))],
            )
        )
        size_row = b.const(np.array(sizes, np.int32).reshape(1, depth))
        wrapped = b.add(
            tosa_ext.SelectOp.build(
                operands=[negative, b.binary(tosa.AddOp, tuples, size_row), tuples],
                result_types=[tuples.type],
            )
        )
        strides = np.cumprod((*sizes[1:], 1)[::-1])[::-1].astype(np.int32)
        scaled = b.binary(tosa.MulOp, wrapped, b.const(strides.reshape(1, depth)))
        total = reduce(b, tosa.ReduceSumOp, scaled, (1,))
        return b.reshape(total, (1, count))


class LowerGatherElements(LoweringPattern):
    """nn.gather_elements -> tosa.gather on the data as [1, size, 1] at the
    row-major index of each output position with its `axis` coordinate
    replaced by the (wrapped) index: a constant offset from the other
    coordinates plus index * stride, folded when the indices are constant."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, GatherElementsOp):
            return
        x, indices = op.data, op.indices
        shape, index_shape = shape_of(x), shape_of(indices)
        if math.prod(shape) > np.iinfo(np.int32).max:
            self.decline(op, "TOSA's i32 gather indices cannot address data this large")
            return
        axis = normalize_axis(int_value(op.properties, "axis", 0), len(shape))
        stride = math.prod(shape[axis + 1 :])
        count = math.prod(index_shape)
        coordinates = np.indices(index_shape)
        coordinates[axis] = 0
        offset = np.ravel_multi_index(tuple(coordinates), shape).astype(np.int32)
        b = TosaBuilder()
        wrapped = i32_indices(b, indices, shape[axis])
        if wrapped is None:
            self.decline(op, "gather_elements indices must be integers")
            return
        known = constant_array(wrapped)
        if known is not None:
            linear = b.const(offset + known * stride)
        else:
            scaled = b.binary(tosa.MulOp, wrapped, b.const_like(wrapped, stride))
            linear = b.binary(tosa.AddOp, scaled, b.const(offset))
        values = b.reshape(x, (1, math.prod(shape), 1))
        gathered = gather(b, values, b.reshape(linear, (1, count)))
        rewriter.replace(op, b.ops, [b.reshape(gathered, index_shape)])


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
