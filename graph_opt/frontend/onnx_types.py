"""ONNX tensor types and initializers to and from MLIR types and dense attributes."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

from graph_opt.dialects.nn.dense import from_numpy, to_numpy
from graph_opt.dialects.nn.dtypes import element_type, numpy_dtype
from graph_opt.dialects.nn.shapes import DYN
from graph_opt.frontend.errors import FrontendError


def onnx_element_type(onnx_dtype: int) -> Attribute:
    try:
        return element_type(onnx.helper.tensor_dtype_to_np_dtype(onnx_dtype))
    except (KeyError, ValueError) as e:
        name = (
            TensorProto.DataType.Name(onnx_dtype)
            if onnx_dtype in TensorProto.DataType.values()
            else onnx_dtype
        )
        raise FrontendError(f"unsupported ONNX element type {name}") from e


def onnx_dtype_of(element: Attribute) -> int:
    return onnx.helper.np_dtype_to_tensor_dtype(numpy_dtype(element))


def tensor_type_from_proto(type_proto: onnx.TypeProto) -> Attribute | None:
    """The MLIR type of an ONNX tensor type; None if it is not a tensor type."""
    if not type_proto.HasField("tensor_type"):
        return None
    tensor = type_proto.tensor_type
    element = onnx_element_type(tensor.elem_type)
    if not tensor.HasField("shape"):
        return UnrankedTensorType(element)
    dims = [d.dim_value if d.HasField("dim_value") else DYN for d in tensor.shape.dim]
    return TensorType(element, dims)


def value_info_for(name: str, value_type: Attribute) -> onnx.ValueInfoProto:
    dtype = onnx_dtype_of(value_type.element_type)  # type: ignore[attr-defined]
    if isinstance(value_type, TensorType):
        shape = [d if d != DYN else None for d in value_type.get_shape()]
        return onnx.helper.make_tensor_value_info(name, dtype, shape)
    return onnx.helper.make_tensor_value_info(name, dtype, None)


def dense_from_tensor(tensor: onnx.TensorProto) -> DenseIntOrFPElementsAttr:
    """An initializer's data as a dense attribute, reusing raw bytes where possible."""
    if tensor.data_type == TensorProto.STRING:
        raise FrontendError(
            f"string tensor '{tensor.name}' is not supported as a constant"
        )
    element = onnx_element_type(tensor.data_type)
    dtype = numpy_dtype(element)
    if (
        tensor.HasField("raw_data")
        and tensor.data_location != TensorProto.EXTERNAL
        and dtype != np.bool_
    ):
        expected = int(np.prod(tensor.dims, dtype=np.int64)) * dtype.itemsize
        if len(tensor.raw_data) != expected:
            raise FrontendError(
                f"tensor '{tensor.name}' has {len(tensor.raw_data)} bytes, expected {expected}"
            )
        return DenseIntOrFPElementsAttr(
            TensorType(element, list(tensor.dims)), BytesAttr(tensor.raw_data)
        )
    try:
        array = numpy_helper.to_array(tensor)
    except Exception as e:  # onnx raises several types for corrupt tensors
        raise FrontendError(f"cannot read tensor '{tensor.name}': {e}") from e
    return from_numpy(np.asarray(array, dtype=dtype), element)


def tensor_from_dense(name: str, attr: DenseIntOrFPElementsAttr) -> onnx.TensorProto:
    """A TensorProto holding the attribute's bytes (raw, no per-element conversion)."""
    array = to_numpy(attr)
    dtype = onnx_dtype_of(attr.get_element_type())
    if array.dtype == np.bool_ or array.strides == (0,) * array.ndim and array.ndim:
        return numpy_helper.from_array(np.ascontiguousarray(array), name)
    tensor = TensorProto(name=name, data_type=dtype, dims=array.shape)
    tensor.raw_data = attr.data.data
    return tensor
