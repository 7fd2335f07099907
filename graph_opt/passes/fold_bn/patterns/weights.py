"""Reading a linear op's constant weights and materializing folded copies of them."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    AnyFloat,
    DenseIntOrFPElementsAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from graph_opt.dialects.nn.constant import ConstantOp, constant_op
from graph_opt.dialects.nn.dense import from_numpy, to_numpy
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.names import name_location, op_result_names
from graph_opt.rewriting.erasure import erase_op
from graph_opt.xdsl_compat.ir import set_name_hint_unchecked


def float_constant(value: SSAValue, role: str) -> np.ndarray | str:
    """The array of a floating-point nn.constant, or why `value` is not one."""
    owner = float_constant_op(value, role)
    return owner if isinstance(owner, str) else owner.to_array()


def float64_rows(constants: Sequence[ConstantOp]) -> np.ndarray:
    """The values of same-shape constants as the rows of one float64 array.

    Constants of one element type whose bytes are all in memory are read as one
    buffer and converted once (numpy's cost per call dominates on a few
    channels); the values are those of converting each array."""
    attrs = [constant.value for constant in constants]
    value_type = attrs[0].type
    datas = []
    for attr in attrs:
        data = attr.data.data
        if type(data) is not bytes or attr.type.element_type != value_type.element_type:
            break
        datas.append(data)
    else:
        dtype = numpy_dtype(value_type.element_type)
        joined = b"".join(datas)
        size = math.prod(value_type.get_shape()) * len(attrs)
        if len(joined) == size * dtype.itemsize:  # (not a splat)
            rows = np.frombuffer(joined, dtype).astype(np.float64)
            return rows.reshape(len(attrs), -1)
    return np.array([to_numpy(attr) for attr in attrs], dtype=np.float64)


def float_constant_op(value: SSAValue, role: str) -> ConstantOp | str:
    """The floating-point nn.constant of `value` (its values not read), or why
    `value` is not one."""
    owner = constant_op(value)
    if owner is None:
        return f"{role} is not a constant"
    if not isinstance(value.type, TensorType) or not isinstance(
        value.type.element_type, AnyFloat
    ):
        return f"{role} is not floating point"
    return owner


def along(vector: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """A vector shaped to broadcast along `axis` of a rank-`rank` array."""
    return vector.reshape(tuple(-1 if i == axis else 1 for i in range(rank)))


def folded_constant(array: np.ndarray, like: SSAValue, suffix: str) -> ConstantOp:
    """A new constant holding `array` in `like`'s element type, named after it."""
    like_type: TensorType = like.type  # type: ignore[assignment]
    value = _dense_like(array, like_type.element_type)
    constant = ConstantOp.holding(value)
    _name_after(constant, like, suffix)
    return constant


@dataclass
class FreedConstants:
    """Constants that only ops a fold erases read. A constant the fold adds takes
    one of the same type (moved before its user and refilled): cheaper than
    creating one and erasing the other."""

    constants: list[ConstantOp]

    @staticmethod
    def read_only_by(ops: Iterable[Operation]) -> FreedConstants:
        """The constants that one of `ops` reads once and nothing else reads."""
        return FreedConstants(
            [
                value.owner
                for op in ops
                for value in op.operands
                if isinstance(value.owner, ConstantOp) and value.has_one_use()
            ]
        )

    def take(self, value_type: TensorType) -> ConstantOp | None:
        for index, constant in enumerate(self.constants):
            found = constant.output.type  # (types are mostly shared: `is` first)
            if found is value_type or found == value_type:
                return self.constants.pop(index)
        return None


def folded_weight(
    array: np.ndarray | DenseIntOrFPElementsAttr,
    like: SSAValue,
    suffix: str,
    user: Operation,
    rewriter: PatternRewriter,
    replaces: bool = True,
    freed: FreedConstants | None = None,
) -> SSAValue:
    """A value holding `array` (or a dense attribute, such as `dense.scaled`
    makes) in `like`'s element type, named after it, for `user`.

    When it `replaces` `like`, a constant that only `user` reads (once) and that
    has `array`'s shape is updated in place; otherwise a constant from `freed`,
    or a new one, is inserted before `user`, as the original may have other users.
    """
    constant = like.owner
    like_type: TensorType = like.type  # type: ignore[assignment]
    if (
        replaces
        and isinstance(constant, ConstantOp)
        and like.get_user_of_unique_use() is user
        and like_type.get_shape() == _shape(array)
    ):
        constant.properties["value"] = _dense_like(array, like_type.element_type)
        _name_after(constant, like, suffix)
        rewriter.notify_op_modified(constant)
        return like
    value = _dense_like(array, like_type.element_type)
    new = freed.take(value.type) if freed is not None else None
    if new is None:
        new = ConstantOp.holding(value)
    else:
        new.detach()
        new.properties["value"] = value
    _name_after(new, like, suffix)
    rewriter.insert(new, InsertPoint.before(user))
    return new.output


def _shape(array: np.ndarray | DenseIntOrFPElementsAttr) -> tuple[int, ...]:
    if isinstance(array, DenseIntOrFPElementsAttr):
        return array.get_shape()
    return array.shape


def _dense_like(
    array: np.ndarray | DenseIntOrFPElementsAttr, element: Attribute
) -> DenseIntOrFPElementsAttr:
    """`array` as a dense attribute of `element`s."""
    if isinstance(array, DenseIntOrFPElementsAttr):
        return array  # (of `element`s: made from the weights it replaces)
    return from_numpy(np.asarray(array, dtype=numpy_dtype(element)), element)


def _name_after(constant: ConstantOp, like: SSAValue, suffix: str) -> None:
    """Name `constant` after `like` (or leave it unnamed when `like` has no name)."""
    name = op_result_names(like.owner)[0] if isinstance(like, OpResult) else None
    constant.location = (
        UNKNOWN_LOC if name is None else name_location([f"{name}_{suffix}"])
    )
    hint = like.name_hint  # valid, and so with a suffix not ending in digits:
    set_name_hint_unchecked(
        constant.output, None if hint is None else f"{hint}_{suffix}"
    )


def operand_constants(ops: Iterable[Operation]) -> set[ConstantOp]:
    """The constants the ops read (collect before rewriting, then `erase_unused`)."""
    return {
        v.owner for op in ops for v in op.operands if isinstance(v.owner, ConstantOp)
    }


def erase_unused(constants: Iterable[ConstantOp], rewriter: PatternRewriter) -> None:
    """Erase the constants that no op reads any more."""
    for constant in constants:
        if constant.parent is not None and constant.results[0].first_use is None:
            erase_op(rewriter, constant)
