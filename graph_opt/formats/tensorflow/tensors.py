"""TensorFlow DataTypes, shapes and TensorProtos as MLIR types and numpy arrays."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

from graph_opt.dialects.nn.attr_builders import dense_elements
from graph_opt.dialects.nn.dense import from_numpy
from graph_opt.dialects.nn.dtypes import element_type
from graph_opt.dialects.nn.shapes import DYN
from graph_opt.dialects.nn.types import StringType
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.schema import DATA_TYPES
from graph_opt.interpreter.limits import check_size
from graph_opt.weights import WeightBytes

DATA_TYPE_NAMES = {number: name for name, number in DATA_TYPES.items()}

NUMPY_DTYPES = {
    DATA_TYPES["DT_FLOAT"]: np.dtype(np.float32),
    DATA_TYPES["DT_DOUBLE"]: np.dtype(np.float64),
    DATA_TYPES["DT_HALF"]: np.dtype(np.float16),
    DATA_TYPES["DT_BFLOAT16"]: np.dtype(ml_dtypes.bfloat16),
    DATA_TYPES["DT_INT8"]: np.dtype(np.int8),
    DATA_TYPES["DT_INT16"]: np.dtype(np.int16),
    DATA_TYPES["DT_INT32"]: np.dtype(np.int32),
    DATA_TYPES["DT_INT64"]: np.dtype(np.int64),
    DATA_TYPES["DT_UINT8"]: np.dtype(np.uint8),
    DATA_TYPES["DT_UINT16"]: np.dtype(np.uint16),
    DATA_TYPES["DT_UINT32"]: np.dtype(np.uint32),
    DATA_TYPES["DT_UINT64"]: np.dtype(np.uint64),
    DATA_TYPES["DT_BOOL"]: np.dtype(np.bool_),
}

_TYPED_FIELD = {
    "DT_FLOAT": "float_val",
    "DT_DOUBLE": "double_val",
    "DT_HALF": "half_val",
    "DT_BFLOAT16": "half_val",
    "DT_INT8": "int_val",
    "DT_INT16": "int_val",
    "DT_INT32": "int_val",
    "DT_UINT8": "int_val",
    "DT_UINT16": "int_val",
    "DT_INT64": "int64_val",
    "DT_UINT32": "uint32_val",
    "DT_UINT64": "uint64_val",
    "DT_BOOL": "bool_val",
}
"""The repeated field TensorFlow writes each type's values to when not using tensor_content."""


MAPPED_ATTR = "_graph_opt_mapped"
"""Marks a Const whose value is held apart, a mapped weight (a SavedModel's
large variables): the import takes it from there."""


def dtype_name(dtype: int) -> str:
    return DATA_TYPE_NAMES.get(dtype, str(dtype))


def numpy_dtype(dtype: int) -> np.dtype:
    base = dtype - 100 if dtype > 100 else dtype  # reference types hold the same values
    if base not in NUMPY_DTYPES:
        raise FrontendError(f"unsupported TensorFlow data type {dtype_name(dtype)}")
    return NUMPY_DTYPES[base]


def mlir_element_type(dtype: int) -> Attribute:
    if dtype == DATA_TYPES["DT_STRING"]:
        return StringType()
    return element_type(numpy_dtype(dtype))


def shape_dims(shape) -> list[int] | None:
    """A TensorShapeProto's dims (DYN where unknown), or None when the rank is unknown."""
    if shape.unknown_rank:
        return None
    return [d.size if d.size >= 0 else DYN for d in shape.dim]


def tensor_type(dtype: int, dims: list[int] | None) -> Attribute:
    element = mlir_element_type(dtype)
    return UnrankedTensorType(element) if dims is None else TensorType(element, dims)


def dense_from_tensor(tensor, what: str) -> DenseIntOrFPElementsAttr:
    """A TensorProto's value as a dense attribute; a single value fills the shape as a splat."""
    dtype = numpy_dtype(tensor.dtype)
    dims = shape_dims(tensor.tensor_shape)
    if dims is None or DYN in dims:
        raise FrontendError(f"{what}: tensor has an unknown shape")
    count = math.prod(dims)
    element = element_type(dtype)
    if tensor.tensor_content:
        expected = count * dtype.itemsize
        if len(tensor.tensor_content) != expected:
            raise FrontendError(
                f"{what}: tensor_content has {len(tensor.tensor_content)} bytes, expected {expected}"
            )
        data = np.frombuffer(tensor.tensor_content, dtype=dtype.newbyteorder("<"))
        return from_numpy(data.reshape(dims), element)
    values = _typed_values(tensor, dtype, what)
    if len(values) > count:
        raise FrontendError(
            f"{what}: tensor holds {len(values)} values for shape {dims}"
        )
    if len(values) == 0:
        values = np.zeros(min(count, 1), dtype=dtype)  # empty stays empty
    if count > 1 and _all_equal(values):
        splat = TensorType(element, dims)
        return DenseIntOrFPElementsAttr(splat, BytesAttr(values[:1].tobytes()))
    if len(values) < count:  # TensorFlow repeats the last value
        check_size(f"{what}: its value", dims, dtype)
        values = np.concatenate([values, np.full(count - len(values), values[-1])])
    return from_numpy(values.reshape(dims), element)


def dense_from_mapped(dtype: int, dims: list[int], data: WeightBytes):
    """A dense attribute holding a mapped weight's bytes as they are."""
    value_type = TensorType(element_type(numpy_dtype(dtype)), dims)
    return dense_elements(value_type, data)


def _all_equal(values: np.ndarray) -> bool:
    """Whether every value has the bits of the first (a splat)."""
    bits = values.view(f"u{values.dtype.itemsize}")
    return bool((bits == bits[0]).all())


def set_splat_value(proto, value: np.ndarray) -> None:
    """Write one value into a TensorProto's typed field (TensorFlow fills the
    shape with it): a splat, never expanded."""
    field_name = _TYPED_FIELD[dtype_name(proto.dtype)]
    if field_name == "half_val":
        getattr(proto, field_name).append(int(np.asarray(value).view(np.uint16)))
    else:
        getattr(proto, field_name).append(value.item())


def _typed_values(tensor, dtype: np.dtype, what: str) -> np.ndarray:
    field_name = _TYPED_FIELD.get(dtype_name(tensor.dtype).removesuffix("_REF"))
    if field_name is None:
        raise FrontendError(
            f"{what}: cannot read {dtype_name(tensor.dtype)} tensor values"
        )
    raw = getattr(tensor, field_name)
    if field_name == "half_val":  # 16-bit patterns stored in int32s
        return np.asarray(raw, dtype=np.uint16).view(dtype)
    return np.asarray(raw, dtype=dtype)
