"""Ops that make or pick positions: range, one_hot, top_k, gather_nd, gather_elements."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, IntegerType, UnitAttr, i64
from xdsl.ir import Attribute
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
    int_value,
)
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.shapes import DYN, normalize_axis, ranked, tensor_type
from graph_opt.dialects.nn.tensor_ops import check_constant_indices, data_and_indices


def range_length(start, limit, delta) -> int:
    """ONNX's and TensorFlow's element count: max(ceil((limit - start) / delta), 0)."""
    if delta == 0:
        raise VerifyException("range delta must not be 0")
    if isinstance(start + limit + delta, int):
        return max(-((start - limit) // delta), 0)
    return max(math.ceil((limit - start) / delta), 0)


@irdl_op_definition
class RangeOp(NNOperation):
    """start, start + delta, ... up to `limit` (excluded); three scalars of one type.

    Element i is `start + i * delta` computed in the type (TensorFlow's
    Range), or with `accumulate` the running sum `start + delta + ... +
    delta` (ONNX's Range as onnxruntime computes it); they differ on floats
    by rounding."""

    name = "nn.range"
    start = operand_def()
    limit = operand_def()
    delta = operand_def()
    accumulate = opt_prop_def(UnitAttr)
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        types = [ranked(v) for v in operands]
        if any(t is None for t in types):
            return None
        for t in types:
            if t.get_num_dims() != 0 or t.element_type != types[0].element_type:
                raise VerifyException(
                    f"start, limit and delta must be scalars of one type, got {', '.join(map(str, types))}"
                )
        values = [_scalar(v) for v in operands]
        if any(v is None for v in values):
            return [tensor_type(types[0].element_type, [DYN])]
        length = range_length(*values)
        return [tensor_type(types[0].element_type, [length])]


def _scalar(value) -> int | float | None:
    """A constant scalar, or an integer that shape arithmetic gives (a range
    up to `tf.shape(x)[0]`)."""
    from graph_opt.dialects.nn.shape_values import known_ints

    array = constant_value(value)
    if array is not None:
        return array.item()
    known = known_ints(value)
    return known[0] if known else None


@irdl_op_definition
class OneHotOp(NNOperation):
    """`values` = [off, on] at every position but `indices` along a new `axis` of
    size `depth`, where `on` sits. Indices outside [0, depth) give all off, but
    negative ones count from the end with `wrap_negative` (ONNX's OneHot)."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"axis": -1}

    name = "nn.one_hot"
    indices = operand_def()
    values = operand_def()
    output = result_def()
    depth = prop_def(IntegerAttr)
    axis = opt_prop_def(IntegerAttr)
    wrap_negative = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    def verify_properties(self) -> None:
        check_flag(self.properties, "wrap_negative")

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        indices, values = ranked(operands[0]), ranked(operands[1])
        if indices is None or values is None:
            return None
        if not isinstance(indices.element_type, IntegerType):
            raise VerifyException(f"indices must be integers, got {indices}")
        if values.get_shape() != (2,):
            raise VerifyException(f"values must hold [off, on], got {values}")
        shape = list(indices.get_shape())
        axis = normalize_axis(int_value(props, "axis", -1), len(shape) + 1)
        depth = int_value(props, "depth", 0)
        if depth < 0:
            raise VerifyException(f"depth {depth} must not be negative")
        shape.insert(axis, depth)
        return [tensor_type(values.element_type, shape)]


@irdl_op_definition
class TopKOp(NNOperation):
    """The `k` largest (or smallest, `largest = 0`) entries along `axis` and their
    i64 indices, best first; equal values keep the lower index first."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"axis": -1}

    name = "nn.top_k"
    input = operand_def()
    values = result_def()
    indices = result_def()
    k = prop_def(IntegerAttr)
    axis = opt_prop_def(IntegerAttr)
    largest = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    def verify_properties(self) -> None:
        check_flag(self.properties, "largest")

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is None:
            return None
        shape = list(x.get_shape())
        axis = normalize_axis(int_value(props, "axis", -1), len(shape))
        k = int_value(props, "k", 0)
        if k < 0 or (shape[axis] != DYN and k > shape[axis]):
            raise VerifyException(
                f"k {k} is out of range for dim {axis} of size {shape[axis]}"
            )
        shape[axis] = k
        return [tensor_type(x.element_type, shape), tensor_type(i64, shape)]


@irdl_op_definition
class GatherNdOp(NNOperation):
    """ONNX's GatherND: the last dim of `indices` (K entries) picks a slice of
    `data` after its first `batch_dims` dims; negative entries count from the end."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"batch_dims": 0}

    name = "nn.gather_nd"
    data = operand_def()
    indices = operand_def()
    output = result_def()
    batch_dims = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        types = data_and_indices(operands)
        if types is None:
            return None
        data, indices = types
        shape, index_shape = data.get_shape(), indices.get_shape()
        batch = int_value(props, "batch_dims", 0)
        if not index_shape or index_shape[-1] == DYN:
            raise VerifyException("the last dim of indices must have a static size")
        depth = index_shape[-1]
        if not 0 <= batch < min(len(shape), len(index_shape)) or batch + depth > len(
            shape
        ):
            raise VerifyException(
                f"indices {list(index_shape)} with batch_dims {batch} do not fit data of rank {len(shape)}"
            )
        out = [*shape[:batch], *index_shape[batch:-1], *shape[batch + depth :]]
        return [tensor_type(data.element_type, out)]


@irdl_op_definition
class GatherElementsOp(NNOperation):
    """ONNX's GatherElements: output[p] = data[p with its `axis` entry replaced
    by indices[p]]; the output has the indices' shape, negative entries count
    from the end."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"axis": 0}

    name = "nn.gather_elements"
    data = operand_def()
    indices = operand_def()
    output = result_def()
    axis = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        types = data_and_indices(operands)
        if types is None:
            return None
        data, indices = types
        shape, index_shape = data.get_shape(), indices.get_shape()
        if len(shape) != len(index_shape):
            raise VerifyException(
                f"indices {list(index_shape)} must have the rank of data {list(shape)}"
            )
        axis = normalize_axis(int_value(props, "axis", 0), len(shape))
        for k, (size, count) in enumerate(zip(shape, index_shape)):
            if k != axis and DYN not in (size, count) and count > size:
                raise VerifyException(
                    f"indices dim {k} of size {count} is larger than data's ({size})"
                )
        check_constant_indices(operands[1], shape[axis], axis)
        return [tensor_type(data.element_type, index_shape)]


INDEX_OPS: Sequence[type[NNOperation]] = [
    RangeOp,
    OneHotOp,
    TopKOp,
    GatherNdOp,
    GatherElementsOp,
]
