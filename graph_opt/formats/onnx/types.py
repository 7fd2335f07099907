"""ONNX types and initializers to and from MLIR types and dense attributes."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import onnx
from onnx import TensorProto, TypeProto, numpy_helper
from xdsl.dialects.builtin import (
    BFloat16Type,
    ComplexType,
    DenseIntOrFPElementsAttr,
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

from graph_opt.dialects.nn.attr_builders import dense_elements
from graph_opt.dialects.nn.shapes import DYN, tensor_type
from graph_opt.dialects.nn.types import OptionalType, SequenceType, StringType
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.stream import DEFERRED_MIN_BYTES
from graph_opt.interpreter.limits import check_size
from graph_opt.weights import WeightBytes, as_bytes, read_weight

_UNSIGNED = Signedness.UNSIGNED
_ELEMENT_TYPES_BY_NAME: dict[str, Attribute] = {
    "FLOAT": Float32Type(),
    "UINT8": IntegerType(8, _UNSIGNED),
    "INT8": IntegerType(8),
    "UINT16": IntegerType(16, _UNSIGNED),
    "INT16": IntegerType(16),
    "INT32": IntegerType(32),
    "INT64": IntegerType(64),
    "STRING": StringType(),
    "BOOL": IntegerType(1),
    "FLOAT16": Float16Type(),
    "DOUBLE": Float64Type(),
    "UINT32": IntegerType(32, _UNSIGNED),
    "UINT64": IntegerType(64, _UNSIGNED),
    "COMPLEX64": ComplexType(Float32Type()),
    "COMPLEX128": ComplexType(Float64Type()),
    "BFLOAT16": BFloat16Type(),
    "FLOAT8E4M3FN": Float8E4M3FNType(),
    "FLOAT8E4M3FNUZ": Float8E4M3FNUZType(),
    "FLOAT8E5M2": Float8E5M2Type(),
    "FLOAT8E5M2FNUZ": Float8E5M2FNUZType(),
    "UINT4": IntegerType(4, _UNSIGNED),
    "INT4": IntegerType(4),
    "FLOAT4E2M1": Float4E2M1FNType(),
    "FLOAT8E8M0": Float8E8M0FNUType(),
    "UINT2": IntegerType(2, _UNSIGNED),
    "INT2": IntegerType(2),
    "FLOAT6E2M3": Float6E2M3FNType(),
    "FLOAT6E3M2": Float6E3M2FNType(),
}
ELEMENT_TYPES: dict[int, Attribute] = {
    getattr(TensorProto, name): element
    for name, element in _ELEMENT_TYPES_BY_NAME.items()
    if hasattr(TensorProto, name)
}
"""Every ONNX element type and its MLIR type (MLIR's names, as onnx-mlir uses them);
the installed onnx's types only (older releases lack the newest)."""

_ONNX_DTYPES = {t: d for d, t in ELEMENT_TYPES.items()}
_SUB_BYTE = {
    getattr(TensorProto, name)
    for name in (
        "UINT4",
        "INT4",
        "FLOAT4E2M1",
        "UINT2",
        "INT2",
        "FLOAT6E2M3",
        "FLOAT6E3M2",
    )
    if hasattr(TensorProto, name)
}
"""Types that ONNX packs several to a byte (a dense attribute holds one per byte)."""
_NOT_RAW_AS_IS = _SUB_BYTE | {TensorProto.BOOL}
"""Types whose raw ONNX bytes are not a dense attribute's bytes."""


def onnx_element_type(onnx_dtype: int) -> Attribute:
    if onnx_dtype in ELEMENT_TYPES:
        return ELEMENT_TYPES[onnx_dtype]
    name = (
        TensorProto.DataType.Name(onnx_dtype)
        if onnx_dtype in TensorProto.DataType.values()
        else onnx_dtype
    )
    raise FrontendError(f"unsupported ONNX element type {name}")


def onnx_dtype_of(element: Attribute) -> int:
    found = _ONNX_DTYPES.get(element)
    if found is not None:
        return found
    if (
        isinstance(element, IntegerType)
        and element.signedness.data == Signedness.SIGNED
    ):
        found = _ONNX_DTYPES.get(IntegerType(element.width.data))
    if found is None:
        raise FrontendError(f"element type {element} has no ONNX form")
    return found


@cache
@cache
def _numpy_dtype(onnx_dtype: int) -> np.dtype:
    return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(onnx_dtype))


def type_from_proto(type_proto: TypeProto) -> Attribute | None:
    """The MLIR type of an ONNX type; None if the type is not given."""
    kind = type_proto.WhichOneof("value")
    if kind is None:
        return None
    if kind == "tensor_type":
        tensor = type_proto.tensor_type
        element = onnx_element_type(tensor.elem_type)
        if not tensor.HasField("shape"):
            return UnrankedTensorType(element)
        dims = tuple(
            d.dim_value if d.HasField("dim_value") else DYN for d in tensor.shape.dim
        )
        return tensor_type(element, dims)
    if kind in ("sequence_type", "optional_type"):
        inner = type_from_proto(getattr(type_proto, kind).elem_type)
        if inner is None:
            return None
        return SequenceType(inner) if kind == "sequence_type" else OptionalType(inner)
    raise FrontendError(f"unsupported ONNX type {kind.removesuffix('_type')}")


def dim_params(value_info: onnx.ValueInfoProto) -> list[str]:
    """The symbolic dim names of a tensor input or output ("" for the others)."""
    tensor = value_info.type.tensor_type
    if not value_info.type.HasField("tensor_type") or not tensor.HasField("shape"):
        return []
    return [d.dim_param for d in tensor.shape.dim]


def type_proto_for(value_type: Attribute) -> TypeProto:
    if isinstance(value_type, SequenceType):
        return onnx.helper.make_sequence_type_proto(
            type_proto_for(value_type.item_type)
        )
    if isinstance(value_type, OptionalType):
        return onnx.helper.make_optional_type_proto(
            type_proto_for(value_type.value_type)
        )
    if not isinstance(value_type, TensorType | UnrankedTensorType):
        raise FrontendError(f"type {value_type} has no ONNX form")
    dtype = onnx_dtype_of(value_type.element_type)
    if isinstance(value_type, UnrankedTensorType):
        return onnx.helper.make_tensor_type_proto(dtype, None)
    shape = [d if d != DYN else None for d in value_type.get_shape()]
    return onnx.helper.make_tensor_type_proto(dtype, shape)


def value_info_for(
    name: str, value_type: Attribute, dim_names: list[str] | None = None
) -> onnx.ValueInfoProto:
    """A graph input's or output's type; its unknown dims keep their symbolic names."""
    info = onnx.helper.make_value_info(name, type_proto_for(value_type))
    if dim_names and info.type.HasField("tensor_type"):
        for dim, dim_name in zip(info.type.tensor_type.shape.dim, dim_names):
            if dim_name and not dim.HasField("dim_value"):
                dim.dim_param = dim_name
    return info


def dense_from_tensor(
    tensor: onnx.TensorProto, mapped: WeightBytes | None = None
) -> DenseIntOrFPElementsAttr:
    """An initializer's data as a dense attribute, reusing raw bytes where
    possible; `mapped`, the tensor's external bytes, are held as they are."""
    data_type = tensor.data_type
    dims = tuple(tensor.dims)
    layout = _layouts.get((data_type, dims))
    if layout is None:
        layout = _layout(tensor, data_type, dims)
    dense_type, raw_size = layout
    if mapped is not None:
        return dense_elements(dense_type, mapped)
    if (
        raw_size is not None
        and tensor.HasField("raw_data")
        and tensor.data_location != TensorProto.EXTERNAL
    ):
        raw = tensor.raw_data  # each read copies the bytes out of the message
        if len(raw) != raw_size:
            raise FrontendError(
                f"tensor '{tensor.name}' has {len(raw)} bytes, expected {raw_size}"
            )
        return dense_elements(dense_type, raw)
    try:
        array = numpy_helper.to_array(tensor)
    except Exception as e:  # onnx raises several types for corrupt tensors
        raise FrontendError(f"cannot read tensor '{tensor.name}': {e}") from e
    array = np.ascontiguousarray(array, dtype=_numpy_dtype(data_type))
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    return dense_elements(dense_type, array.tobytes())


_layouts: dict[tuple[int, tuple[int, ...]], tuple[TensorType, int | None]] = {}
"""Per element type and dims: the dense type, and the size raw bytes have
when they are the attribute's bytes as they are (None: they are not). Graphs
of many small ops repeat a few of them."""
_LAYOUTS_LIMIT = 1 << 12


def _layout(
    tensor: onnx.TensorProto, data_type: int, dims: tuple[int, ...]
) -> tuple[TensorType, int | None]:
    if data_type == TensorProto.STRING:
        raise FrontendError(
            f"string tensor '{tensor.name}' is not supported as a constant"
        )
    dense_type = tensor_type(onnx_element_type(data_type), dims)
    raw_size = None
    if data_type not in _NOT_RAW_AS_IS:
        raw_size = math.prod(dims) * _numpy_dtype(data_type).itemsize
    if len(_layouts) >= _LAYOUTS_LIMIT:
        _layouts.clear()
    _layouts[data_type, dims] = (dense_type, raw_size)
    return dense_type, raw_size


def array_of(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """A read-only numpy view of a dense attribute of any ONNX element type."""
    dtype = _numpy_dtype(onnx_dtype_of(attr.get_element_type()))
    flat = np.frombuffer(read_weight(attr.data.data), dtype=dtype)
    shape = attr.get_shape()
    if flat.size == 1 and math.prod(shape) != 1:
        return np.broadcast_to(flat.reshape(()), shape)
    return flat.reshape(shape)


def tensor_from_dense(
    name: str,
    attr: DenseIntOrFPElementsAttr,
    into: onnx.TensorProto | None = None,
    deferred: dict[str, bytes] | None = None,
) -> onnx.TensorProto:
    """A TensorProto holding the attribute's bytes (raw, no per-element conversion),
    written into `into` if given (saves copying large weights). With `deferred`,
    raw bytes of DEFERRED_MIN_BYTES or more go there by name instead, for
    `onnx_stream.write_model`."""
    tensor = into if into is not None else TensorProto()
    dtype = onnx_dtype_of(attr.get_element_type())
    shape = attr.get_shape()
    data = attr.data.data
    splat = len(data) == _numpy_dtype(dtype).itemsize and math.prod(shape) != 1
    if splat or dtype in _NOT_RAW_AS_IS:
        check_size(
            f"tensor '{name}'" if name else "a tensor attribute",
            shape,
            _numpy_dtype(dtype),
        )
        array = np.array(array_of(attr), order="C")
        tensor.CopyFrom(numpy_helper.from_array(array, name))
        return tensor
    tensor.name = name
    tensor.data_type = dtype
    tensor.dims.extend(shape)
    if deferred is not None and len(data) >= DEFERRED_MIN_BYTES:
        deferred[name] = data
    else:
        tensor.raw_data = as_bytes(data)
    return tensor
