"""Lowering of comparisons, logical ops, select and arg max/min to TOSA."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, IntegerType, TensorType, i1, i32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn import compare as nn
from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.elementwise import FloatTestOp, IsInfOp, IsNanOp
from graph_opt.dialects.nn.reduce import ArgMaxOp, ArgMinOp, ArgReduceOp
from graph_opt.lowering.lowering_pattern import LoweringPattern
from graph_opt.lowering.tosa_builder import TosaBuilder, element_of, shape_of
from graph_opt.lowering.tosa_elementwise import is_float
from graph_opt.lowering.tosa_quant import cast
from graph_opt.lowering.tosa_special_values import argmax_candidates

COMPARISONS: dict[type[Operation], tuple[type[Operation], bool]] = {
    nn.EqualOp: (tosa_ext.EqualOp, False),
    nn.NotEqualOp: (tosa_ext.EqualOp, False),  # then logical_not
    nn.GreaterOp: (tosa_ext.GreaterOp, False),
    nn.GreaterEqualOp: (tosa_ext.GreaterEqualOp, False),
    nn.LessOp: (tosa_ext.GreaterOp, True),
    nn.LessEqualOp: (tosa_ext.GreaterEqualOp, True),
}
"""nn comparison -> (TOSA comparison, whether the operands swap)."""

LOGICAL_OPS: dict[type[Operation], type[Operation]] = {
    nn.LogicalAndOp: tosa_ext.LogicalAndOp,
    nn.LogicalOrOp: tosa_ext.LogicalOrOp,
    nn.LogicalXorOp: tosa_ext.LogicalXorOp,
}


def comparable(value: SSAValue) -> bool:
    """Element types TOSA compares: floats and i32 (and i64, as IREE accepts it)."""
    element = element_of(value)
    return is_float(value) or (
        isinstance(element, IntegerType) and element.width.data in (32, 64)
    )


def elementwise(
    b: TosaBuilder, op_type: type[Operation], operands: list[SSAValue], element
) -> SSAValue:
    """A TOSA elementwise op on operands brought to equal rank (TOSA broadcasts
    only size-1 dims), its result of `element`s."""
    rank = max(len(shape_of(v)) for v in operands)
    operands = [b.to_rank(v, rank) for v in operands]
    shape = np.broadcast_shapes(*(shape_of(v) for v in operands))
    result = TensorType(element, shape)
    return b.add(op_type.build(operands=operands, result_types=[result]))


def logical_not(b: TosaBuilder, value: SSAValue) -> SSAValue:
    return b.unary(tosa_ext.LogicalNotOp, value)


def float_test(b: TosaBuilder, op: FloatTestOp, x: SSAValue) -> SSAValue:
    """is_nan: x != x; is_inf: |x| == inf; is_finite: |x| < inf (false for NaN)."""
    if isinstance(op, IsNanOp):
        return logical_not(b, elementwise(b, tosa_ext.EqualOp, [x, x], i1))
    magnitude = b.unary(tosa_ext.AbsOp, x)
    infinity = b.const_like(x, np.inf)
    if isinstance(op, IsInfOp):
        return elementwise(b, tosa_ext.EqualOp, [magnitude, infinity], i1)
    return elementwise(b, tosa_ext.GreaterOp, [infinity, magnitude], i1)


class LowerComparisons(LoweringPattern):
    """Comparisons (less as greater with swapped operands, not_equal as not of
    equal), logical ops, select and the float tests (is_nan, is_inf, is_finite)
    -> their TOSA counterparts."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        b = TosaBuilder()
        operands = list(op.operands)
        if type(op) in COMPARISONS:
            if not all(comparable(v) for v in operands):
                self.decline(op, "TOSA compares floats, i32 and i64 only")
                return
            op_type, swap = COMPARISONS[type(op)]
            result = elementwise(b, op_type, operands[::-1] if swap else operands, i1)
            if isinstance(op, nn.NotEqualOp):
                result = logical_not(b, result)
        elif type(op) in LOGICAL_OPS:
            result = elementwise(b, LOGICAL_OPS[type(op)], operands, i1)
        elif isinstance(op, nn.LogicalNotOp):
            result = logical_not(b, operands[0])
        elif isinstance(op, FloatTestOp):
            result = float_test(b, op, operands[0])
        elif isinstance(op, nn.SelectOp):
            result = elementwise(
                b, tosa_ext.SelectOp, operands, element_of(operands[1])
            )
        else:
            return
        rewriter.replace(op, b.ops, [result])


class LowerArgReductions(LoweringPattern):
    """nn.argmax (nn.argmin as argmax of -x) on floats -> tosa.argmax, its i32
    indices cast to i64 when asked; NaN and the scan's start as the op's
    `scan_from_first` says (tosa_special_values)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ArgMaxOp | ArgMinOp):
            return
        reason = self.unsupported(op)
        if reason:
            self.decline(op, reason)
            return
        b = TosaBuilder()
        x = op.input
        if isinstance(op, ArgMinOp):
            zero = b.zero_point(element_of(x))
            x = b.add(
                tosa_ext.NegateOp.build(operands=[x, zero, zero], result_types=[x.type])
            )
        shape = list(shape_of(x))
        axis = int_value(op.properties, "axis", 0) % len(shape)
        x = argmax_candidates(b, x, axis, op.scan_from_first is not None)
        del shape[axis]
        index = b.add(
            tosa_ext.ArgMaxOp.build(
                operands=[x],
                properties={"axis": IntegerAttr(axis, i32)},
                result_types=[TensorType(i32, shape)],
            )
        )
        index = b.reshape(index, shape_of(op.output))
        if element_of(op.output) != i32:
            index = cast(b, index, element_of(op.output))
        rewriter.replace(op, b.ops, [index])

    @staticmethod
    def unsupported(op: ArgReduceOp) -> str | None:
        if not is_float(op.input):
            return "only float arg max/min lower to TOSA"
        if int_value(op.properties, "select_last_index", 0):
            return "TOSA's argmax returns the first index: select_last_index is unsupported"
        return None
