"""TOSA forms of the nn properties that keep a framework's semantics on
special values (docs/guarantees.md, "Special values"): NaN, infinities and
the type's extremes as TensorFlow's or ONNX's arg max/min scan and
TensorFlow's clamping cast see them."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Attribute, SSAValue

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.lowering.tosa_builder import TosaBuilder, element_of, shape_of


def _select(b: TosaBuilder, test: SSAValue, x: SSAValue, other: SSAValue) -> SSAValue:
    return b.add(
        tosa_ext.SelectOp.build(operands=[test, x, other], result_types=[x.type])
    )


def _compare(b: TosaBuilder, op_type, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    shape = np.broadcast_shapes(shape_of(lhs), shape_of(rhs))
    return b.add(
        op_type.build(operands=[lhs, rhs], result_types=[TensorType(i1, shape)])
    )


def argmax_candidates(
    b: TosaBuilder, x: SSAValue, axis: int, scan_from_first: bool
) -> SSAValue:
    """x for tosa.argmax (first index of the largest; argmin's x negated) with
    NaN made -inf, so that it never wins, and with `scan_from_first` (ONNX) a
    leading NaN made +inf (it is the result); without it (TensorFlow) the
    type's lowest finite value made -inf too (the scan starts from it: 0 where
    nothing beats it)."""
    dtype = numpy_dtype(element_of(x))
    if scan_from_first:
        fill = np.full([1] * len(shape_of(x)), -np.inf)
        fill = np.repeat(fill, shape_of(x)[axis], axis)
        fill[(0,) * len(shape_of(x))] = np.inf
        keep = _compare(b, tosa_ext.EqualOp, x, x)
    else:
        fill = np.full([1] * len(shape_of(x)), -np.inf)
        keep = _compare(
            b, tosa_ext.GreaterOp, x, b.const_like(x, -ml_dtypes.finfo(dtype).max)
        )
    return _select(b, keep, x, b.const(fill, element_of(x)))


def clamped_cast_input(b: TosaBuilder, x: SSAValue, target: Attribute) -> SSAValue:
    """x with NaN, +inf and values from 2^31 up made the `target` integer
    type's minimum: TensorFlow converts them to int32's minimum, then clamps
    to the narrow type (tosa.cast saturates the rest)."""
    low = np.iinfo(numpy_dtype(target)).min
    with np.errstate(over="ignore"):  # float16's 2^31 is inf: every finite x is below
        bound = b.const_like(x, 2.0**31)
    below = _compare(b, tosa_ext.GreaterOp, bound, x)
    return _select(b, below, x, b.const_like(x, low))
