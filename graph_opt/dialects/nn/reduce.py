"""Reductions over a set of axes: mean, sum, max, min."""

from __future__ import annotations

from abc import ABC

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr
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


class ReduceOp(NNOperation, ABC):
    """Reduce `input` over `axes` (i64 array; empty = all axes unless
    `noop_with_empty_axes`); `keepdims` (default 1) keeps them as size 1."""

    input = operand_def()
    output = result_def()
    axes = opt_prop_def(DenseArrayBase)
    keepdims = opt_prop_def(IntegerAttr)
    noop_with_empty_axes = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @property
    def keeps_dims(self) -> bool:
        return bool(int_value(self.properties, "keepdims", 1))

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        keep = int_value(props, "keepdims", 1)
        if keep not in (0, 1):
            raise VerifyException(f"keepdims must be 0 or 1, got {keep}")
        x = ranked(operands[0])
        if x is None:
            return None
        shape = x.get_shape()
        axes = reduced_axes(props, len(shape))
        if keep:
            out = [1 if i in axes else d for i, d in enumerate(shape)]
        else:
            out = [d for i, d in enumerate(shape) if i not in axes]
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


REDUCE_OPS = [ReduceMeanOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp]
