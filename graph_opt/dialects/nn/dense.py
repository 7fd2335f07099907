"""Conversion between dense elements attributes and numpy arrays (bytes, never lists)."""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

from graph_opt.dialects.nn.attr_builders import dense_elements
from graph_opt.dialects.nn.dtypes import element_type, numpy_dtype
from graph_opt.dialects.nn.shapes import tensor_type
from graph_opt.weights import (
    SPILL_MIN_BYTES,
    ScaledWeight,
    WeightBytes,
    read_weight,
    spilled,
)


def to_numpy(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """A read-only numpy view of a dense attribute's bytes, in its shape."""
    value_type = attr.type
    data = read_weight(attr.data.data)
    flat = np.frombuffer(data, dtype=numpy_dtype(value_type.element_type))
    shape = value_type.get_shape()
    if flat.size == 1 and math.prod(shape) != 1:
        return np.broadcast_to(flat.reshape(()), shape)
    return flat.reshape(shape)


def scaled(
    attr: DenseIntOrFPElementsAttr, factor: np.ndarray
) -> DenseIntOrFPElementsAttr:
    """`attr`'s values times `factor` (broadcasting to them), in their type:
    for a mapped weight, a `ScaledWeight` computed when read (never whole in
    memory at export); else computed now."""
    data = attr.data.data
    if type(data) is WeightBytes and math.prod(attr.get_shape()) > 1:
        dtype = numpy_dtype(attr.type.element_type)
        shape = attr.get_shape()
        return dense_elements(attr.type, ScaledWeight(data, shape, dtype, factor))
    array = to_numpy(attr)
    return from_numpy((array * factor).astype(array.dtype), attr.type.element_type)


def from_numpy(array: np.ndarray, dtype_type=None) -> DenseIntOrFPElementsAttr:
    """A dense attribute holding a copy of `array`'s bytes (C order, little
    endian); of `SPILL_MIN_BYTES` or more, held in the spill file."""
    array = np.asarray(array)
    el_type = dtype_type if dtype_type is not None else element_type(array.dtype)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    value_type = tensor_type(el_type, array.shape)
    if array.nbytes >= SPILL_MIN_BYTES:
        return dense_elements(value_type, spilled(array))
    return dense_elements(value_type, array.tobytes())
