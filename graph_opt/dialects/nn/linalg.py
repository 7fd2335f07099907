"""Matrix products: numpy-style matmul and ONNX Gemm."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
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

from graph_opt.dialects.nn.base import GENERIC_FORMAT, NNOperation, check_flag
from graph_opt.dialects.nn.shapes import (
    DYN,
    broadcast_shapes,
    dims_compatible,
    ranked,
    tensor_type,
)


def check_same_element_type(*types: TensorType) -> None:
    elements = {t.element_type for t in types}
    if len(elements) > 1:
        raise VerifyException(
            f"operand element types differ: {', '.join(map(str, elements))}"
        )


def check_contraction(lhs_k: int, rhs_k: int) -> None:
    if DYN not in (lhs_k, rhs_k) and lhs_k != rhs_k:
        raise VerifyException(
            f"contracted dims differ: {lhs_k} (lhs) and {rhs_k} (rhs)"
        )


def broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether `shape` broadcasts to `target` without growing it (unidirectional)."""
    if len(shape) > len(target):
        return False
    try:
        return dims_compatible(broadcast_shapes(shape, target), target)
    except VerifyException:
        return False


def matmul_shape(lhs: tuple[int, ...], rhs: tuple[int, ...]) -> tuple[int, ...]:
    """numpy.matmul's result shape: batch dims broadcast, a 1-D operand loses its dim."""
    if not lhs or not rhs:
        raise VerifyException("matmul operands must have rank >= 1")
    lhs_2d = (1, *lhs) if len(lhs) == 1 else lhs
    rhs_2d = (*rhs, 1) if len(rhs) == 1 else rhs
    check_contraction(lhs_2d[-1], rhs_2d[-2])
    batch = broadcast_shapes(lhs_2d[:-2], rhs_2d[:-2])
    rows = () if len(lhs) == 1 else (lhs_2d[-2],)
    cols = () if len(rhs) == 1 else (rhs_2d[-1],)
    return (*batch, *rows, *cols)


@irdl_op_definition
class MatMulOp(NNOperation):
    """numpy.matmul: batch dims broadcast; a 1-D lhs (rhs) is a row (column) vector
    whose dim is removed from the result."""

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    name = "nn.matmul"
    lhs = operand_def()
    rhs = operand_def()
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        lhs, rhs = ranked(operands[0]), ranked(operands[1])
        if lhs is None or rhs is None:
            return None
        check_same_element_type(lhs, rhs)
        shape = matmul_shape(lhs.get_shape(), rhs.get_shape())
        return [tensor_type(lhs.element_type, shape)]


@irdl_op_definition
class GemmOp(NNOperation):
    """alpha * op(a) @ op(b) + beta * c, where op transposes with `trans_a` /
    `trans_b`; a and b are 2-D, the optional c broadcasts to the [M, N] result."""

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    name = "nn.gemm"
    a = operand_def()
    b = operand_def()
    c = opt_operand_def()
    output = result_def()
    alpha = opt_prop_def(FloatAttr)
    beta = opt_prop_def(FloatAttr)
    trans_a = opt_prop_def(IntegerAttr)
    trans_b = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        trans_a, trans_b = check_flag(props, "trans_a"), check_flag(props, "trans_b")
        a, b = ranked(operands[0]), ranked(operands[1])
        if a is None or b is None:
            return None
        if len(a.get_shape()) != 2 or len(b.get_shape()) != 2:
            raise VerifyException(
                f"gemm needs 2-D a and b, got ranks {len(a.get_shape())} and {len(b.get_shape())}"
            )
        check_same_element_type(a, b)
        m, k = reversed(a.get_shape()) if trans_a else a.get_shape()
        k_b, n = reversed(b.get_shape()) if trans_b else b.get_shape()
        check_contraction(k, k_b)
        c = ranked(operands[2]) if len(operands) == 3 else None
        if c is not None:
            check_same_element_type(a, c)
            if not broadcasts_to(c.get_shape(), (m, n)):
                raise VerifyException(
                    f"c of shape {list(c.get_shape())} does not broadcast to [{m}, {n}]"
                )
        return [tensor_type(a.element_type, (m, n))]


LINALG_OPS = [MatMulOp, GemmOp]
