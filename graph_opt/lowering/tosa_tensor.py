"""Lowering of constants, shape and data-movement ops, reductions and softmax to TOSA."""

from __future__ import annotations

import math

from xdsl.dialects import tosa
from xdsl.dialects.builtin import (
    IntegerAttr,
    IntegerType,
    TensorType,
    bf16,
    f16,
    f32,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.norm import SoftmaxOp
from graph_opt.dialects.nn.reduce import (
    ReduceAllOp,
    ReduceAnyOp,
    ReduceMaxOp,
    ReduceMeanOp,
    ReduceMinOp,
    ReduceProdOp,
    ReduceSumOp,
    reduced_axes,
)
from graph_opt.dialects.nn.shape_ops import FlattenOp, ReshapeOp, SqueezeOp, UnsqueezeOp
from graph_opt.dialects.nn.shapes import normalize_axis
from graph_opt.dialects.nn.tensor_ops import (
    CastOp,
    ConcatOp,
    PadOp,
    SliceOp,
    SplitOp,
    TransposeOp,
    slice_axes,
    slice_bounds,
)
from graph_opt.lowering.lowering_pattern import LoweringPattern, constant_array
from graph_opt.lowering.tosa_builder import TosaBuilder, element_of, shape_of
from graph_opt.lowering.tosa_elementwise import is_float
from graph_opt.lowering.tosa_special_values import clamped_cast_input

RESHAPING_OPS = (ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp)

TOSA_REDUCTIONS: dict[type[Operation], type[Operation]] = {
    ReduceSumOp: tosa.ReduceSumOp,
    ReduceMeanOp: tosa.ReduceSumOp,
    ReduceMaxOp: tosa.ReduceMaxOp,
    ReduceMinOp: tosa.ReduceMinOp,
    ReduceProdOp: tosa.ReduceProductOp,
    ReduceAnyOp: tosa.ReduceAnyOp,
    ReduceAllOp: tosa.ReduceAllOp,
}
BOOL_REDUCTIONS = (ReduceAnyOp, ReduceAllOp)
INTEGER_REDUCTIONS = (ReduceSumOp, ReduceMaxOp, ReduceMinOp)
"""On i32 as TOSA defines them, on i64 as IREE accepts them."""


def reduce(
    b: TosaBuilder, op_type: type[Operation], x: SSAValue, axes: tuple[int, ...]
) -> SSAValue:
    """One TOSA reduction per axis; reduced dims stay as size 1."""
    for axis in axes:
        shape = list(shape_of(x))
        shape[axis] = 1
        x = b.add(
            op_type.build(
                operands=[x],
                properties={"axis": IntegerAttr(axis, i32)},
                result_types=[TensorType(element_of(x), shape)],
            )
        )
    return x


class LowerTensorOps(LoweringPattern):
    """Constants, reshapes, transpose, concat and pads (constant; edge and reflect
    as slices concatenated around the input)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        b = TosaBuilder()
        match op:
            case ConstantOp():
                result = b.add(tosa.ConstOp(op.value))
            case _ if isinstance(op, RESHAPING_OPS):
                result = b.reshape(op.operands[0], shape_of(op.results[0]))
            case TransposeOp():
                x = op.operands[0]
                result = b.transpose(x, op.permutation(op.properties, len(shape_of(x))))
            case ConcatOp():
                axis = normalize_axis(
                    int_value(op.properties, "axis", 0), len(shape_of(op.results[0]))
                )
                result = b.add(
                    tosa.ConcatOp(
                        op.operands, IntegerAttr(axis, i32), op.results[0].type
                    )
                )
            case PadOp():
                lowered = self.pad(b, op)
                if lowered is None:
                    return
                result = lowered
            case _:
                return
        rewriter.replace(op, b.ops, [result])

    def pad(self, b: TosaBuilder, op: PadOp) -> SSAValue | None:
        pads = list(op.pads.get_values())
        rank = len(pads) // 2
        if min(pads) < 0:
            self.decline(op, "TOSA pads cannot crop (negative pads)")
            return None
        x = op.operands[0]
        if op.pad_mode != "constant":
            for axis in range(rank):
                x = mirror_pad(b, x, axis, pads[axis], pads[axis + rank], op.pad_mode)
            return x
        padding = [p for axis in range(rank) for p in (pads[axis], pads[axis + rank])]
        fill = b.scalar(op.fill, element_of(x))
        return b.add(
            tosa_ext.PadOp.build(
                operands=[x, b.const_shape(padding), fill],
                result_types=[op.results[0].type],
            )
        )


def mirror_pad(
    b: TosaBuilder, x: SSAValue, axis: int, begin: int, end: int, mode: str
) -> SSAValue:
    """An edge or reflect pad along one axis: slices of x concatenated around it
    (edge repeats the border slice, reflect mirrors the slices next to it)."""
    if not begin and not end:
        return x
    size = shape_of(x)[axis]

    def rows(indices) -> list[SSAValue]:
        return [slice_along(b, x, {axis: (i, 1)}) for i in indices]

    if mode == "edge":
        before, after = rows([0] * begin), rows([size - 1] * end)
    else:
        before = rows(range(begin, 0, -1))
        after = rows(range(size - 2, size - 2 - end, -1))
    parts = [*before, x, *after]
    shape = list(shape_of(x))
    shape[axis] += begin + end
    return b.add(
        tosa.ConcatOp(parts, IntegerAttr(axis, i32), TensorType(element_of(x), shape))
    )


class LowerSlicing(LoweringPattern):
    """nn.slice (constant bounds, step 1) and nn.split -> tosa.slice."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, SliceOp | SplitOp):
            return
        x = op.operands[0]
        shape = shape_of(x)
        b = TosaBuilder()
        if isinstance(op, SplitOp):
            axis = normalize_axis(int_value(op.properties, "axis", 0), len(shape))
            results, start = [], 0
            for result in op.results:
                size = shape_of(result)[axis]
                results.append(slice_along(b, x, {axis: (start, size)}))
                start += size
            rewriter.replace(op, b.ops, results)
            return
        params = [constant_array(v) for v in op.operands[1:]]
        if any(p is None for p in params):
            self.decline(op, "slice bounds must be constants")
            return
        windows = {}
        for axis, (start, end, step) in slice_axes(len(shape), *params).items():
            if step != 1:
                self.decline(op, f"TOSA slices have no step (got {step})")
                return
            begin, _, length = slice_bounds(shape[axis], start, end, step)
            windows[axis] = (begin, length)
        rewriter.replace(op, b.ops, [slice_along(b, x, windows)])


def slice_along(
    b: TosaBuilder, x: SSAValue, windows: dict[int, tuple[int, int]]
) -> SSAValue:
    """tosa.slice taking (start, size) along the given axes, all of the others."""
    shape = shape_of(x)
    starts = [windows.get(a, (0, d))[0] for a, d in enumerate(shape)]
    sizes = [windows.get(a, (0, d))[1] for a, d in enumerate(shape)]
    return b.add(
        tosa_ext.SliceOp.build(
            operands=[x, b.const_shape(starts), b.const_shape(sizes)],
            result_types=[TensorType(element_of(x), sizes)],
        )
    )


class LowerCast(LoweringPattern):
    """nn.cast -> tosa.cast; float to int truncates first (ONNX), as tosa.cast
    rounds. To an integer narrower than 32 bits only with `clamp_narrow`
    (TensorFlow: NaN, +inf and values from 2^31 up are the minimum, the rest
    saturate as tosa.cast does); ONNX's wrapping is declined."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, CastOp):
            return
        x, target = op.operands[0], op.to
        source = element_of(x)
        if not (
            all(t in TOSA_CAST_TYPES for t in (source, target))
            or {source, target} <= INTEGER_CAST_TYPES
        ):
            self.decline(
                op,
                f"TOSA casts between {TOSA_CAST_TYPES_TEXT}, not {source} to {target}",
            )
            return
        if is_narrowing(source, target):
            self.decline(
                op, f"narrowing integer cast {source} to {target} (ONNX wraps)"
            )
            return
        if is_wrapping_float_cast(op, x):
            self.decline(
                op,
                f"float cast to {target} wraps (ONNX; no clamp_narrow): tosa.cast saturates",
            )
            return
        b = TosaBuilder()
        if is_float(x) and isinstance(target, IntegerType):
            if op.clamp_narrow is not None and 1 < target.width.data < 32:
                x = clamped_cast_input(b, x, target)
            positive = b.add(
                tosa_ext.GreaterEqualOp.build(
                    operands=[x, b.const_like(x, 0.0)],
                    result_types=[TensorType(i1, shape_of(x))],
                )
            )
            floor, ceil = b.unary(tosa_ext.FloorOp, x), b.unary(tosa_ext.CeilOp, x)
            x = b.add(
                tosa_ext.SelectOp.build(
                    operands=[positive, floor, ceil], result_types=[x.type]
                )
            )
        cast = tosa_ext.CastOp.build(operands=[x], result_types=[op.results[0].type])
        rewriter.replace(op, [*b.ops, cast], [cast.results[0]])


TOSA_CAST_TYPES = (i1, i8, i16, i32, f16, bf16, f32)
INTEGER_CAST_TYPES = {i1, i8, i16, i32, i64}
"""i64 casts only to and from integers (TOSA's int64 extension, as IREE accepts it)."""
TOSA_CAST_TYPES_TEXT = "i1, i8, i16, i32, f16, bf16 and f32 (i64 only with integers)"


def is_wrapping_float_cast(op: CastOp, x: SSAValue) -> bool:
    """A float cast to an integer narrower than 32 bits that wraps (ONNX)."""
    target = op.to
    return (
        is_float(x)
        and isinstance(target, IntegerType)
        and 1 < target.width.data < 32
        and op.clamp_narrow is None
    )


def is_narrowing(source, target) -> bool:
    """An integer cast that wraps in ONNX; to i1 is x != 0, which TOSA's cast is."""
    return (
        isinstance(source, IntegerType)
        and isinstance(target, IntegerType)
        and 1 < target.width.data < source.width.data
    )


class LowerReductions(LoweringPattern):
    """nn.reduce_{sum,mean,max,min,prod,any,all} -> per-axis tosa.reduce_*; mean
    scales the sum; integer sum, max and min of i32 or i64."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) not in TOSA_REDUCTIONS:
            return
        x = op.operands[0]
        if not (
            is_float(x)
            or isinstance(op, BOOL_REDUCTIONS)
            or (isinstance(op, INTEGER_REDUCTIONS) and element_of(x) in (i32, i64))
        ):
            self.decline(
                op, "integer reductions lower to TOSA as sum, max or min of i32 or i64"
            )
            return
        shape = shape_of(x)
        axes = reduced_axes(op.properties, len(shape))
        b = TosaBuilder()
        y = reduce(b, TOSA_REDUCTIONS[type(op)], x, axes)
        if isinstance(op, ReduceMeanOp):
            y = b.scale(y, 1 / math.prod(shape[a] for a in axes))
        rewriter.replace(op, b.ops, [b.reshape(y, shape_of(op.results[0]))])


class LowerSoftmax(LoweringPattern):
    """nn.softmax -> exp(x - max) * reciprocal(sum(exp(x - max))) along its axis."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, SoftmaxOp):
            return
        x = op.operands[0]
        if not is_float(x):
            self.decline(op, "integer softmax does not lower to TOSA")
            return
        axis = normalize_axis(int_value(op.properties, "axis", -1), len(shape_of(x)))
        b = TosaBuilder()
        peak = reduce(b, tosa.ReduceMaxOp, x, (axis,))
        exp = b.unary(tosa_ext.ExpOp, b.binary(tosa.SubOp, x, peak))
        total = reduce(b, tosa.ReduceSumOp, exp, (axis,))
        y = b.binary(tosa.MulOp, exp, b.unary(tosa.ReciprocalOp, total))
        rewriter.replace(op, b.ops, [y])
