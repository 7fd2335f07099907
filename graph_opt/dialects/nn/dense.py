"""Conversion between dense elements attributes and numpy arrays (bytes, never lists)."""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

from graph_opt.dialects.nn.attr_builders import dense_elements
from graph_opt.dialects.nn.dtypes import element_type, numpy_dtype
from graph_opt.dialects.nn.shapes import tensor_type


def to_numpy(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """A read-only numpy view of a dense attribute's bytes, in its shape."""
    value_type = attr.type
    flat = np.frombuffer(attr.data.data, dtype=numpy_dtype(value_type.element_type))
    shape = value_type.get_shape()
    if flat.size == 1 and math.prod(shape) != 1:
        return np.broadcast_to(flat.reshape(()), shape)
    return flat.reshape(shape)


def from_numpy(array: np.ndarray, dtype_type=None) -> DenseIntOrFPElementsAttr:
    """A dense attribute holding a copy of `array`'s bytes (C order, little endian)."""
    array = np.asarray(array)
    el_type = dtype_type if dtype_type is not None else element_type(array.dtype)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    return dense_elements(tensor_type(el_type, array.shape), array.tobytes())
