"""Ops that rearrange or describe shapes: reshape, flatten, squeeze, shape, size..."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import (
    GENERIC_FORMAT,
    NNOperation,
    PropertyDefaults,
    int_list,
    int_value,
)
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.dense import to_numpy
from graph_opt.dialects.nn.shapes import DYN, normalize_axis, ranked, tensor_type


def reshaped(
    in_shape: tuple[int, ...] | None, target: list[int], allowzero: bool
) -> tuple[int, ...]:
    """ONNX Reshape's rule: 0 copies the input dim (unless allowzero), -1 is inferred."""
    out = list(target)
    if not allowzero:
        out = [
            (in_shape[i] if in_shape is not None and i < len(in_shape) else DYN)
            if d == 0
            else d
            for i, d in enumerate(out)
        ]
    if out.count(-1) > 1:
        raise VerifyException("reshape target has more than one -1")
    if -1 in out:
        # dims copied by 0 are in both products: the -1 is known without them
        copied = (
            set()
            if allowzero or in_shape is None or 0 in in_shape
            else _copied(in_shape, target)
        )
        known_dims = [d for i, d in enumerate(out) if d != -1 and i not in copied]
        known = math.prod(known_dims)
        rest = [d for i, d in enumerate(in_shape or ()) if i not in copied]
        if in_shape is None or DYN in rest or DYN in known_dims or known == 0:
            return tuple(DYN if d == -1 else d for d in out)
        total = math.prod(rest)
        if total % known:
            raise VerifyException(f"cannot reshape {list(in_shape)} to {target}")
        out[out.index(-1)] = total // known
    elif (
        in_shape is not None
        and DYN not in in_shape
        and math.prod(in_shape) != math.prod(out)
    ):
        raise VerifyException(f"cannot reshape {list(in_shape)} to {target}")
    return tuple(out)


def _copied(in_shape: tuple[int, ...], target: list[int]) -> set[int]:
    """The positions whose input dim a 0 in `target` copies."""
    return {i for i, d in enumerate(target) if d == 0 and i < len(in_shape)}


@irdl_op_definition
class ReshapeOp(NNOperation):
    """Reshape `input` to the 1-D i64 `shape` (0 copies a dim unless allowzero, -1 is inferred)."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"allowzero": 0}

    name = "nn.reshape"
    input = operand_def()
    shape = operand_def()
    output = result_def()
    allowzero = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        from graph_opt.dialects.nn.shape_values import known_ints

        x = ranked(operands[0])
        target = known_ints(operands[1])
        if target is None:
            return None
        in_shape = x.get_shape() if x is not None else None
        element = operands[0].type.element_type  # type: ignore[attr-defined]
        allowzero = bool(int_value(props, "allowzero", 0))
        if None in target:
            return [tensor_type(element, reshaped_partly(in_shape, target, allowzero))]
        return [tensor_type(element, reshaped(in_shape, target, allowzero))]  # type: ignore[arg-type]


def reshaped_partly(
    in_shape: tuple[int, ...] | None, target: list[int | None], allowzero: bool
) -> tuple[int, ...]:
    """`reshaped` where some target elements are unknown (None): those dims are
    unknown, and so is the one a -1 infers."""
    if target.count(-1) > 1:
        raise VerifyException("reshape target has more than one -1")
    return tuple(
        DYN
        if d is None or d == -1
        else (in_shape[i] if in_shape is not None and i < len(in_shape) else DYN)
        if d == 0 and not allowzero
        else d
        for i, d in enumerate(target)
    )


def flatten_axis(axis: int, rank: int) -> int:
    """Flatten's axis in [0, rank] (a negative one counts from the end)."""
    return axis + rank if axis < 0 else axis


def _dims_product(dims) -> int:
    return DYN if DYN in dims else math.prod(dims)


@irdl_op_definition
class FlattenOp(NNOperation):
    """Flatten to 2-D: dims before `axis` make the rows, the rest the columns."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"axis": 1}

    name = "nn.flatten"
    input = operand_def()
    output = result_def()
    axis = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is None:
            return None
        shape = x.get_shape()
        axis = int_value(props, "axis", 1)
        if not -len(shape) <= axis <= len(shape):
            raise VerifyException(f"axis {axis} is out of range for rank {len(shape)}")
        axis = flatten_axis(axis, len(shape))
        out = (_dims_product(shape[:axis]), _dims_product(shape[axis:]))
        return [tensor_type(x.element_type, out)]


class AxesOp(NNOperation, ABC):
    """An op that inserts or removes unit dims at the `axes` of its input."""

    input = operand_def()
    output = result_def()
    axes = opt_prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    @abstractmethod
    def result_shape(
        cls, shape: tuple[int, ...], axes: tuple[int, ...] | None
    ) -> tuple[int, ...] | None:
        """The output shape, or None when it depends on unknown dims."""

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is None:
            return None
        axes = int_list(props, "axes")
        if axes is not None and len(set(axes)) != len(axes):
            raise VerifyException(f"axes {list(axes)} has duplicates")
        shape = cls.result_shape(x.get_shape(), axes)
        return None if shape is None else [tensor_type(x.element_type, shape)]


@irdl_op_definition
class SqueezeOp(AxesOp):
    """Remove the unit dims at `axes` (all unit dims when `axes` is absent)."""

    name = "nn.squeeze"

    @classmethod
    def result_shape(cls, shape, axes):
        if axes is None:
            if DYN in shape:
                return None
            return tuple(d for d in shape if d != 1)
        removed = {normalize_axis(a, len(shape)) for a in axes}
        for a in removed:
            if shape[a] not in (1, DYN):
                raise VerifyException(f"cannot squeeze axis {a} of size {shape[a]}")
        return tuple(d for i, d in enumerate(shape) if i not in removed)


@irdl_op_definition
class UnsqueezeOp(AxesOp):
    """Insert unit dims so that they sit at `axes` of the result."""

    name = "nn.unsqueeze"

    def verify_properties(self) -> None:
        if self.axes is None:
            raise VerifyException("nn.unsqueeze needs axes")

    @classmethod
    def result_shape(cls, shape, axes):
        if axes is None:
            raise VerifyException("nn.unsqueeze needs axes")
        rank = len(shape) + len(axes)
        inserted = {normalize_axis(a, rank) for a in axes}
        rest = iter(shape)
        return tuple(1 if i in inserted else next(rest) for i in range(rank))


def shape_range(rank: int, start: int, end: int | None) -> range:
    """The dims that ONNX Shape returns: negative bounds count from the end, then clamp."""
    return range(rank)[slice(start, end)]


@irdl_op_definition
class ShapeOp(NNOperation):
    """The dims `start` to `end` of the input's shape, as a 1-D i64 tensor."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"start": 0}

    name = "nn.shape"
    input = operand_def()
    output = result_def()
    start = opt_prop_def(IntegerAttr)
    end = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    def dims(self, rank: int) -> range:
        end = self.end.value.data if self.end is not None else None
        return shape_range(rank, int_value(self.properties, "start", 0), end)

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is None:
            return [tensor_type(i64, [DYN])]
        end = int_value(props, "end", x.get_num_dims())
        length = len(shape_range(x.get_num_dims(), int_value(props, "start", 0), end))
        return [tensor_type(i64, [length])]


class ScalarQueryOp(NNOperation, ABC):
    """A property of the input's type (not of its values) as an i64 scalar."""

    input = operand_def()
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute]:
        return [tensor_type(i64, [])]


@irdl_op_definition
class SizeOp(ScalarQueryOp):
    """The number of elements of the input."""

    name = "nn.size"


@irdl_op_definition
class RankOp(ScalarQueryOp):
    """The number of dims of the input (TensorFlow's Rank)."""

    name = "nn.rank"


@irdl_op_definition
class ConstantOfShapeOp(NNOperation):
    """A tensor of the 1-D i64 `shape`, filled with the one-element `value` (f32 zero by default)."""

    name = "nn.constant_of_shape"
    shape = operand_def()
    output = result_def()
    value = opt_prop_def(DenseIntOrFPElementsAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    def fill_value(self) -> np.ndarray:
        if self.value is None:
            return np.zeros((), np.float32)
        return to_numpy(self.value).reshape(())

    def verify_properties(self) -> None:
        if self.value is not None and math.prod(self.value.get_shape()) != 1:
            raise VerifyException("value must hold exactly one element")

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        value = props.get("value")
        element = value.get_element_type() if value is not None else f32  # type: ignore[attr-defined]
        shape_type = ranked(operands[0])
        if shape_type is None:
            return None
        if shape_type.element_type != i64 or shape_type.get_num_dims() != 1:
            raise VerifyException(f"shape must be a 1-D i64 tensor, got {shape_type}")
        dims = constant_value(operands[0])
        if dims is not None:
            if (dims < 0).any():
                raise VerifyException(f"shape {dims.tolist()} has negative dims")
            return [tensor_type(element, [int(d) for d in dims])]
        (length,) = shape_type.get_shape()
        return None if length == DYN else [tensor_type(element, [DYN] * length)]


SHAPE_OPS = [
    ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, ShapeOp, SizeOp, RankOp,
    ConstantOfShapeOp,
]  # fmt: skip
