"""Comparisons and logical ops (i1 results) and select, with numpy broadcasting;
the indices of true elements (nonzero)."""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from xdsl.dialects.builtin import IntegerType, i1, i64
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Commutative, Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import GENERIC_FORMAT, NNOperation
from graph_opt.dialects.nn.elementwise import ElementwiseBinaryOp, ElementwiseUnaryOp
from graph_opt.dialects.nn.shapes import DYN, broadcast_shapes, ranked, tensor_type


def is_bool(element: Attribute) -> bool:
    return isinstance(element, IntegerType) and element.width.data == 1


class CompareOp(ElementwiseBinaryOp, ABC):
    """`lhs pred rhs` elementwise: operands of one element type, an i1 result."""

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        types = super().infer_result_types(operands, props)
        if types is None:
            return None
        return [tensor_type(i1, types[0].get_shape())]


class LogicalBinaryOp(ElementwiseBinaryOp, ABC):
    """A logical op on i1 operands."""

    traits = traits_def(Pure(), Commutative())

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        types = super().infer_result_types(operands, props)
        if types is not None and not is_bool(types[0].element_type):
            raise VerifyException(f"expected i1 operands, got {types[0].element_type}")
        return types


def _op(base: type, op_name: str, class_name: str, doc: str, commutative=False):
    namespace = {"name": op_name, "__doc__": doc, "__module__": __name__}
    if commutative:
        namespace["traits"] = traits_def(Pure(), Commutative())
    return irdl_op_definition(type(class_name, (base,), namespace))


EqualOp = _op(CompareOp, "nn.equal", "EqualOp", "lhs == rhs.", commutative=True)
NotEqualOp = _op(
    CompareOp, "nn.not_equal", "NotEqualOp", "lhs != rhs.", commutative=True
)
GreaterOp = _op(CompareOp, "nn.greater", "GreaterOp", "lhs > rhs.")
GreaterEqualOp = _op(CompareOp, "nn.greater_equal", "GreaterEqualOp", "lhs >= rhs.")
LessOp = _op(CompareOp, "nn.less", "LessOp", "lhs < rhs.")
LessEqualOp = _op(CompareOp, "nn.less_equal", "LessEqualOp", "lhs <= rhs.")
LogicalAndOp = _op(LogicalBinaryOp, "nn.logical_and", "LogicalAndOp", "lhs and rhs.")
LogicalOrOp = _op(LogicalBinaryOp, "nn.logical_or", "LogicalOrOp", "lhs or rhs.")
LogicalXorOp = _op(LogicalBinaryOp, "nn.logical_xor", "LogicalXorOp", "lhs != rhs.")


@irdl_op_definition
class LogicalNotOp(ElementwiseUnaryOp):
    """not x, on i1."""

    name = "nn.logical_not"

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute]:
        x = ranked(operands[0])
        if x is not None and not is_bool(x.element_type):
            raise VerifyException(f"expected an i1 operand, got {x.element_type}")
        return [operands[0].type]


@irdl_op_definition
class SelectOp(NNOperation):
    """`condition ? on_true : on_false` elementwise, the three broadcast together
    (TF SelectV2, ONNX Where); the result has the branches' element type."""

    name = "nn.select"
    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    condition = operand_def()
    on_true = operand_def()
    on_false = operand_def()
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        types = [ranked(v) for v in operands]
        if None in types:
            return None
        condition, on_true, on_false = types
        if not is_bool(condition.element_type):
            raise VerifyException(
                f"the condition must be i1, got {condition.element_type}"
            )
        if on_true.element_type != on_false.element_type:
            raise VerifyException(
                f"branch element types differ: {on_true.element_type} and "
                f"{on_false.element_type}"
            )
        shape = broadcast_shapes(
            condition.get_shape(),
            broadcast_shapes(on_true.get_shape(), on_false.get_shape()),
        )
        return [tensor_type(on_true.element_type, shape)]


@irdl_op_definition
class NonZeroOp(NNOperation):
    """The indices of the non-zero (true) elements, in row-major order, as ONNX
    NonZero: i64 of shape [rank, count], count known only at run time."""

    name = "nn.nonzero"
    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    input = operand_def()
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is None:
            return None
        if not x.get_num_dims():
            raise VerifyException("expected an input of rank 1 or more")
        return [tensor_type(i64, (x.get_num_dims(), DYN))]


COMPARE_OPS = [
    EqualOp, NotEqualOp, GreaterOp, GreaterEqualOp, LessOp, LessEqualOp,
    LogicalAndOp, LogicalOrOp, LogicalXorOp, LogicalNotOp, SelectOp, NonZeroOp,
]  # fmt: skip
