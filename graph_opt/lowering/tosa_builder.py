"""Builds the TOSA ops that lowering patterns share: constants, shapes, zero points, layout changes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import tosa
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    i8,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.dense import from_numpy
from graph_opt.dialects.nn.dtypes import float_info, numpy_dtype

NCHW_TO_NHWC = (0, 2, 3, 1)
NHWC_TO_NCHW = (0, 3, 1, 2)
OIHW_TO_OHWI = (0, 2, 3, 1)
HWIO_TO_OHWI = (3, 0, 1, 2)
IOHW_TO_OHWI = (1, 2, 3, 0)
HWOI_TO_OHWI = (2, 0, 1, 3)


def shape_of(value: SSAValue) -> tuple[int, ...]:
    return tuple(value.type.get_shape())  # type: ignore[attr-defined]


def element_of(value: SSAValue) -> Attribute:
    return value.type.element_type  # type: ignore[attr-defined]


class TosaBuilder:
    """Collects new ops in order; a pattern then replaces its op with `ops`."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def const(self, array: np.ndarray, element: Attribute | None = None) -> SSAValue:
        if element is not None:
            array = np.asarray(array, dtype=numpy_dtype(element))
        return self.add(tosa.ConstOp(from_numpy(array, element)))

    def scalar(self, value: float, element: Attribute) -> SSAValue:
        """A tensor<1 x element>: zero points, pad values, shifts."""
        return self.const(np.array([value]), element)

    def zero_point(self, element: Attribute) -> SSAValue:
        return self.scalar(0, element)

    def shift(self) -> SSAValue:
        """tosa.mul's shift operand: 0 (floats ignore it)."""
        return self.scalar(0, i8)

    def const_shape(self, values: Sequence[int]) -> SSAValue:
        attr = from_numpy(np.array(values, dtype=np.int64), IndexType())
        return self.add(
            tosa_ext.ConstShapeOp.build(
                properties={"values": attr},
                result_types=[tosa_ext.ShapeType(len(values))],
            )
        )

    def reshape(self, value: SSAValue, shape: Sequence[int]) -> SSAValue:
        if shape_of(value) == tuple(shape):
            return value
        return self.add(
            tosa_ext.ReshapeOp.build(
                operands=[value, self.const_shape(shape)],
                result_types=[TensorType(element_of(value), shape)],
            )
        )

    def transpose(self, value: SSAValue, perm: Sequence[int]) -> SSAValue:
        if tuple(perm) == tuple(range(len(perm))):
            return value
        shape = shape_of(value)
        return self.add(
            tosa_ext.TransposeOp.build(
                operands=[value],
                properties={"perms": DenseArrayBase.from_list(i32, list(perm))},
                result_types=[TensorType(element_of(value), [shape[p] for p in perm])],
            )
        )

    def transpose_const(self, array: np.ndarray, perm: Sequence[int]) -> SSAValue:
        """A constant already permuted (weights): no transpose op at run time."""
        return self.const(np.ascontiguousarray(np.transpose(array, perm)))

    def unary(self, op_type: type[Operation], value: SSAValue) -> SSAValue:
        return self.add(op_type.build(operands=[value], result_types=[value.type]))

    def binary(
        self, op_type: type[Operation], lhs: SSAValue, rhs: SSAValue
    ) -> SSAValue:
        """An elementwise op on operands broadcast to equal rank (TOSA needs it)."""
        lhs, rhs = self.equal_rank(lhs, rhs)
        shape = np.broadcast_shapes(shape_of(lhs), shape_of(rhs))
        result = TensorType(element_of(lhs), shape)
        operands = [lhs, rhs, self.shift()] if op_type is tosa.MulOp else [lhs, rhs]
        return self.add(op_type.build(operands=operands, result_types=[result]))

    def equal_rank(self, lhs: SSAValue, rhs: SSAValue) -> tuple[SSAValue, SSAValue]:
        rank = max(len(shape_of(lhs)), len(shape_of(rhs)))
        return self.to_rank(lhs, rank), self.to_rank(rhs, rank)

    def to_rank(self, value: SSAValue, rank: int) -> SSAValue:
        shape = shape_of(value)
        return self.reshape(value, (1,) * (rank - len(shape)) + shape)

    def clamp(self, value: SSAValue, low: float, high: float) -> SSAValue:
        element = element_of(value)
        bounds = {
            "min_val": _bound(low, element),
            "max_val": _bound(high, element),
        }
        return self.add(
            tosa.ClampOp.build(
                operands=[value], properties=bounds, result_types=[value.type]
            )
        )

    def const_like(self, value: SSAValue, fill: float) -> SSAValue:
        """A constant of value's element type and rank, every dim 1 (it broadcasts)."""
        rank = len(shape_of(value))
        return self.const(np.full((1,) * rank, fill), element_of(value))

    def scale(self, value: SSAValue, factor: float) -> SSAValue:
        return self.binary(tosa.MulOp, value, self.const_like(value, factor))


def _bound(value: float, element: Attribute) -> FloatAttr | IntegerAttr:
    """A clamp bound in the element type; bounds past the type's extremes become them."""
    if isinstance(element, IntegerType):
        info = np.iinfo(numpy_dtype(element))
        return IntegerAttr(int(min(max(value, info.min), info.max)), element)
    limit = float(float_info(numpy_dtype(element)).max)
    return FloatAttr(min(max(value, -limit), limit), element)  # type: ignore[arg-type]
