"""Reductions over a set of axes (mean, sum, max, min, prod, any, all), arg
max/min, and running sums."""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import (
    GENERIC_FORMAT,
    NNOperation,
    PropertyDefaults,
    check_flag,
    int_list,
    int_value,
)
from graph_opt.dialects.nn.shapes import normalize_axis, ranked, tensor_type


def reduced_axes(props, rank: int) -> tuple[int, ...]:
    """The sorted axes a reduction removes: empty `axes` means all axes, or none
    with `noop_with_empty_axes`."""
    axes = int_list(props, "axes") or ()
    if not axes:
        return () if check_flag(props, "noop_with_empty_axes") else tuple(range(rank))
    normalized = [normalize_axis(a, rank, "reduction axis") for a in axes]
    if len(set(normalized)) != len(normalized):
        raise VerifyException(f"reduction axes {list(axes)} repeat an axis")
    return tuple(sorted(normalized))


class AxesReduction(NNOperation, ABC):
    """A reduction of `input` over some axes; `keepdims` (default 1) keeps them as size 1."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"keepdims": 1}

    input = operand_def()
    output = result_def()
    keepdims = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @property
    def keeps_dims(self) -> bool:
        return bool(int_value(self.properties, "keepdims", 1))

    @staticmethod
    def reduced_shape(props, shape, axes: tuple[int, ...]) -> list[int]:
        keep = int_value(props, "keepdims", 1)
        if keep not in (0, 1):
            raise VerifyException(f"keepdims must be 0 or 1, got {keep}")
        if keep:
            return [1 if i in axes else d for i, d in enumerate(shape)]
        return [d for i, d in enumerate(shape) if i not in axes]


class ReduceOp(AxesReduction, ABC):
    """Reduce `input` over `axes` (i64 array; empty = all axes unless
    `noop_with_empty_axes`); `keepdims` (default 1) keeps them as size 1."""

    axes = opt_prop_def(DenseArrayBase)
    noop_with_empty_axes = opt_prop_def(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is None:
            cls.reduced_shape(props, (), ())  # checks keepdims
            return None
        shape = x.get_shape()
        out = cls.reduced_shape(props, shape, reduced_axes(props, len(shape)))
        return [tensor_type(x.element_type, out)]


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    name = "nn.reduce_mean"


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "nn.reduce_sum"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    name = "nn.reduce_max"


@irdl_op_definition
class ReduceMinOp(ReduceOp):
    name = "nn.reduce_min"


@irdl_op_definition
class ReduceProdOp(ReduceOp):
    name = "nn.reduce_prod"


class BoolReduceOp(ReduceOp, ABC):
    """A reduction of i1 values."""

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is not None and x.element_type != IntegerType(1):
            raise VerifyException(f"expected an i1 input, got {x.element_type}")
        return super().infer_result_types(operands, props)


@irdl_op_definition
class ReduceAnyOp(BoolReduceOp):
    """Logical or over the axes (TF Any)."""

    name = "nn.reduce_any"


@irdl_op_definition
class ReduceAllOp(BoolReduceOp):
    """Logical and over the axes (TF All)."""

    name = "nn.reduce_all"


class ArgReduceOp(AxesReduction, ABC):
    """The index of the largest (smallest) element along `axis` (default 0), the
    first one unless `select_last_index`; `keepdims` (default 1) keeps the axis
    as size 1. Indices have element type `output_type` (i64 unless given: TF's
    `output_type` may be i32).

    NaN never compares greater (smaller): the index is that of the extreme
    among the numbers, and 0 where there is none (every value NaN). The scan
    starts from the type's lowest (highest) finite value (TensorFlow: an
    argmax over NaN and -inf alone is 0), or with `scan_from_first` from the
    first element (ONNX as onnxruntime computes it: a leading NaN is the
    result)."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"axis": 0}

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    axis = opt_prop_def(IntegerAttr)
    select_last_index = opt_prop_def(IntegerAttr)
    output_type = opt_prop_def(TypeAttribute)
    scan_from_first = opt_prop_def(UnitAttr)

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        check_flag(props, "select_last_index")
        index_type = props.get("output_type", i64)
        if index_type not in (i64, IntegerType(32)):
            raise VerifyException(f"output_type must be i32 or i64, got {index_type}")
        x = ranked(operands[0])
        if x is None:
            cls.reduced_shape(props, (), ())  # checks keepdims
            return None
        shape = x.get_shape()
        if not shape:
            raise VerifyException("expected an input of rank 1 or more")
        axis = normalize_axis(int_value(props, "axis", 0), len(shape))
        return [tensor_type(index_type, cls.reduced_shape(props, shape, (axis,)))]


@irdl_op_definition
class ArgMaxOp(ArgReduceOp):
    name = "nn.argmax"


@irdl_op_definition
class ArgMinOp(ArgReduceOp):
    name = "nn.argmin"


@irdl_op_definition
class CumSumOp(NNOperation):
    """Running sums along `axis` (ONNX CumSum, TF Cumsum): `exclusive` leaves out
    the element itself, `reverse` sums from the end. Half floats are summed in
    float32, each sum rounded, as onnxruntime does (TF's CPU kernel sums float16
    in float16, which stalls at 2048)."""

    name = "nn.cumsum"
    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    input = operand_def()
    output = result_def()
    axis = prop_def(IntegerAttr)
    exclusive = opt_prop_def(IntegerAttr)
    reverse = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        check_flag(props, "exclusive")
        check_flag(props, "reverse")
        x = ranked(operands[0])
        if x is None:
            return None
        normalize_axis(int_value(props, "axis", 0), x.get_num_dims())
        return [x]


REDUCE_OPS = [
    ReduceMeanOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp,
    ReduceProdOp, ReduceAnyOp, ReduceAllOp, ArgMaxOp, ArgMinOp, CumSumOp,
]  # fmt: skip
