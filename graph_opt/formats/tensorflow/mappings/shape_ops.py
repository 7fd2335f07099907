"""Shape ops: Reshape, Squeeze, ExpandDims, Shape, ShapeN, Size, Rank, Fill."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, i64
from xdsl.ir import SSAValue

from graph_opt.dialects.nn import shape_ops as s
from graph_opt.dialects.nn.base import i64_array, i64_attr
from graph_opt.dialects.nn.dense import from_numpy
from graph_opt.dialects.nn.tensor_ops import CastOp
from graph_opt.formats.tensorflow.op_table import importer
from graph_opt.formats.tensorflow.schema import DATA_TYPES
from graph_opt.formats.tensorflow.tensors import mlir_element_type

INT32 = DATA_TYPES["DT_INT32"]
"""The default out_type of Shape, ShapeN and Size, and Rank's type."""


def int64_input(b, value, what: str):
    """An integer operand as i64, which nn ops take for shapes and axes: a new
    constant, the value itself, or an nn.cast of a computed int32 tensor."""
    array = b.constant_value(value)
    if array is not None:
        return b.constant(np.asarray(array, dtype=np.int64))
    element = getattr(value.type, "element_type", None)
    if element == i64:
        return value
    if not isinstance(element, IntegerType):
        b.decline(f"{what} must be an integer tensor")
    return b.create(CastOp, [value], {"to": i64}).results[0]


def int_constant(b, value, what: str) -> list[int]:
    """A constant integer operand (scalar or vector) as a list."""
    return [int(v) for v in b.constant_input(value, what).reshape(-1)]


def cast_to(b, value: SSAValue, dtype: int) -> SSAValue:
    """`value` (an i64 shape query) as the TensorFlow DataType `dtype`."""
    element = mlir_element_type(dtype)
    if element == i64:
        return value
    return b.create(CastOp, [value], {"to": element}).results[0]


@importer("Reshape")
def import_reshape(b, node, inputs):
    """TensorFlow's 0 in a shape is an empty dim, never a copy: allowzero."""
    x, shape = inputs
    target = int64_input(b, shape, "the shape")
    return b.create(s.ReshapeOp, [x, target], {"allowzero": i64_attr(1)})


@importer("Squeeze")
def import_squeeze(b, node, inputs):
    """No squeeze_dims removes every unit dim."""
    axes = b.attr("squeeze_dims", [])
    props = {"axes": i64_array(axes)} if axes else {}
    return b.create(s.SqueezeOp, inputs, props)


@importer("ExpandDims")
def import_expand_dims(b, node, inputs):
    """A negative axis counts in the result, as nn.unsqueeze's do."""
    x, axis = inputs
    (axis,) = int_constant(b, axis, "the axis")
    return b.create(s.UnsqueezeOp, [x], {"axes": i64_array([axis])})


@importer("Shape")
def import_shape(b, node, inputs):
    shape = b.create(s.ShapeOp, inputs).results[0]
    return [cast_to(b, shape, b.attr("out_type", INT32))]


@importer("ShapeN")
def import_shape_n(b, node, inputs):
    out_type = b.attr("out_type", INT32)
    return [cast_to(b, b.create(s.ShapeOp, [x]).results[0], out_type) for x in inputs]


@importer("Size")
def import_size(b, node, inputs):
    size = b.create(s.SizeOp, inputs).results[0]
    return [cast_to(b, size, b.attr("out_type", INT32))]


@importer("Rank")
def import_rank(b, node, inputs):
    rank = b.create(s.RankOp, inputs).results[0]
    return [cast_to(b, rank, INT32)]


@importer("Fill")
def import_fill(b, node, inputs):
    """The filled value must be a constant (nn.constant_of_shape holds it)."""
    dims, value = inputs
    fill = b.constant_input(value, "the fill value")
    if fill.size != 1:
        b.decline("the fill value must be a scalar")
    element = value.type.element_type
    props = {"value": from_numpy(fill.reshape(1), element)}
    shape = int64_input(b, dims, "dims")
    return b.create(s.ConstantOfShapeOp, [shape], props)
