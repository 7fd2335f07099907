"""ONNX node attributes to and from MLIR attributes."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import AttributeProto
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    f32,
)
from xdsl.ir import Attribute

from graph_opt.dialects.nn.base import f32_attr, i64_array, i64_attr
from graph_opt.dialects.nn.dense import to_numpy
from graph_opt.formats.onnx.types import dense_from_tensor, tensor_from_dense
from graph_opt.identity_memo import IdentityMemo

SIMPLE_TYPES = {
    AttributeProto.INT,
    AttributeProto.FLOAT,
    AttributeProto.STRING,
    AttributeProto.INTS,
    AttributeProto.FLOATS,
    AttributeProto.STRINGS,
    AttributeProto.TENSOR,
}


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="surrogateescape")


def mlir_attr(attr: AttributeProto) -> Attribute:
    """The MLIR form of a simple ONNX attribute (see SIMPLE_TYPES)."""
    kind = attr.type
    if kind == AttributeProto.INT:
        return i64_attr(attr.i)
    if kind == AttributeProto.FLOAT:
        return f32_attr(attr.f)
    if kind == AttributeProto.STRING:
        return StringAttr(_decode(attr.s))
    if kind == AttributeProto.INTS:
        return i64_array(attr.ints)
    if kind == AttributeProto.FLOATS:
        return DenseArrayBase(f32, _f32_bytes(attr.floats))
    if kind == AttributeProto.STRINGS:
        return ArrayAttr([StringAttr(_decode(s)) for s in attr.strings])
    if kind == AttributeProto.TENSOR:
        return dense_from_tensor(attr.t)
    raise ValueError(f"attribute {attr.name} has no MLIR form")


def _f32_bytes(values) -> BytesAttr:
    return BytesAttr(np.asarray(values, dtype=np.float32).tobytes())


def onnx_attr(name: str, value: Attribute) -> AttributeProto:
    """The ONNX attribute for an MLIR attribute made by `mlir_attr` (or written by hand).

    Shared between calls with the same attribute object (nodes repeat them; adding
    one to a node copies it): copy it before changing it."""
    made = _made.get(value, name)
    if made is None:
        made = _made.put(value, _make_onnx_attr(name, value), name)
    return made


_made: IdentityMemo[AttributeProto] = IdentityMemo(limit=1 << 12)
"""ONNX attributes made, per MLIR attribute object and name."""


def _make_onnx_attr(name: str, value: Attribute) -> AttributeProto:
    if isinstance(value, IntegerAttr):
        return onnx.helper.make_attribute(name, int(value.value.data))
    if isinstance(value, FloatAttr):
        return onnx.helper.make_attribute(name, float(value.value.data))
    if isinstance(value, StringAttr):
        return onnx.helper.make_attribute(
            name, value.data.encode("utf-8", errors="surrogateescape")
        )
    if isinstance(value, DenseArrayBase):
        values = list(value.get_values())
        kind = AttributeProto.FLOATS if value.elt_type == f32 else AttributeProto.INTS
        return onnx.helper.make_attribute(name, values, attr_type=kind)
    if isinstance(value, ArrayAttr):
        strings = [s.data.encode("utf-8", errors="surrogateescape") for s in value.data]  # type: ignore[attr-defined]
        return onnx.helper.make_attribute(
            name, strings, attr_type=AttributeProto.STRINGS
        )
    if isinstance(value, DenseIntOrFPElementsAttr):
        return onnx.helper.make_attribute(name, tensor_from_dense("", value))
    raise ValueError(f"attribute {name} = {value} has no ONNX form")


def python_value(value: Attribute):
    """An MLIR attribute made by `mlir_attr` as a Python value (for table-driven lowering)."""
    if isinstance(value, IntegerAttr | FloatAttr):
        return value.value.data
    if isinstance(value, StringAttr):
        return value.data
    if isinstance(value, DenseArrayBase):
        return list(value.get_values())
    if isinstance(value, DenseIntOrFPElementsAttr):
        return to_numpy(value)
    return value
