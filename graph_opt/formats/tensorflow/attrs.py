"""TensorFlow node attributes (AttrValue) as Python values and MLIR attributes."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.tensors import (
    dtype_name,
    mlir_element_type,
    shape_dims,
)


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="surrogateescape")


def python_value(value):
    """An AttrValue as a Python value: str, int, float, bool, DataType number,
    dims (None for unknown rank), TensorProto, function name, or a list of those."""
    kind = value.WhichOneof("value")
    if kind == "s":
        return _decode(value.s)
    if kind == "shape":
        return shape_dims(value.shape)
    if kind == "func":
        return value.func.name
    if kind == "list":
        items = value.list
        for name in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            entries = getattr(items, name)
            if entries:
                if name == "s":
                    return [_decode(s) for s in entries]
                if name == "shape":
                    return [shape_dims(s) for s in entries]
                if name == "func":
                    return [f.name for f in entries]
                return list(entries)
        return []
    if kind is None:
        return None
    return getattr(value, kind)


def mlir_attr(value) -> Attribute | None:
    """The MLIR form of a simple AttrValue; None for shapes, tensors, functions and
    mixed lists, which an nn.opaque keeps serialized."""
    kind = value.WhichOneof("value")
    if kind == "i":
        return IntegerAttr(value.i, 64)
    if kind == "f":
        return FloatAttr(value.f, 32)
    if kind == "b":
        return IntegerAttr(int(value.b), 1)
    if kind == "s":
        return StringAttr(_decode(value.s))
    if kind == "type":
        return _type_attr(value.type)
    if kind == "list":
        items = value.list
        if items.shape or items.tensor or items.func:
            return None
        if items.i:
            return DenseArrayBase.from_list(i64, list(items.i))
        if items.f:
            return DenseArrayBase(
                f32, BytesAttr(np.asarray(items.f, np.float32).tobytes())
            )
        if items.s:
            return ArrayAttr([StringAttr(_decode(s)) for s in items.s])
        if items.b:
            return ArrayAttr([IntegerAttr(int(b), 1) for b in items.b])
        return ArrayAttr([_type_attr(t) for t in items.type])
    return None


def _type_attr(dtype: int) -> Attribute:
    try:
        return mlir_element_type(dtype)
    except FrontendError:
        return StringAttr(dtype_name(dtype))
