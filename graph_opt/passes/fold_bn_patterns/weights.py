"""Reading a linear op's constant weights and materializing folded copies of them."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    TensorType,
)
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects.nn.attr_builders import dense_elements
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.shapes import tensor_type
from graph_opt.frontend.names import name_location, op_result_names


def float_constant(value: SSAValue, role: str) -> np.ndarray | str:
    """The array of a floating-point nn.constant, or why `value` is not one."""
    array = constant_value(value)
    if array is None:
        return f"{role} is not a constant"
    if not isinstance(value.type, TensorType) or not isinstance(
        value.type.element_type, AnyFloat
    ):
        return f"{role} is not floating point"
    return array


def along(vector: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """A vector shaped to broadcast along `axis` of a rank-`rank` array."""
    return vector.reshape(tuple(-1 if i == axis else 1 for i in range(rank)))


def folded_constant(array: np.ndarray, like: SSAValue, suffix: str) -> ConstantOp:
    """A new constant holding `array` in `like`'s element type, named after it.

    Folded weights always get a new constant: the original may have other users.
    """
    like_type: TensorType = like.type  # type: ignore[assignment]
    element = like_type.element_type
    array = np.ascontiguousarray(array.astype(numpy_dtype(element)))
    if like_type.get_shape() == array.shape:
        value_type = like_type
    else:
        value_type = tensor_type(element, array.shape)
    value = dense_elements(value_type, array.tobytes())
    constant = ConstantOp.create(properties={"value": value}, result_types=[value_type])
    name = op_result_names(like.owner)[0] if isinstance(like, OpResult) else None
    if name is not None:
        constant.location = name_location([f"{name}_{suffix}"])
    if like.name_hint is not None:
        constant.output.name_hint = f"{like.name_hint}_{suffix}"
    return constant


def operand_constants(ops: Iterable[Operation]) -> set[ConstantOp]:
    """The constants the ops read (collect before rewriting, then `erase_unused`)."""
    return {
        v.owner for op in ops for v in op.operands if isinstance(v.owner, ConstantOp)
    }


def erase_unused(constants: Iterable[ConstantOp], rewriter: PatternRewriter) -> None:
    """Erase the constants that no op reads any more."""
    for constant in constants:
        if constant.parent is not None and constant.output.first_use is None:
            rewriter.erase(constant)
