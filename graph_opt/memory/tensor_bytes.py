"""Bytes of a tensor from its static type, as Grappler's EstimateSize: an
unknown dim counts as an assumed size (1 unless told otherwise)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from graph_opt.dialects.nn.dtypes import numpy_dtype


@dataclass(frozen=True)
class TensorSize:
    bytes: int
    dynamic: bool
    """Some dim is unknown: `bytes` assumes the given size for it."""
    sized: bool = True
    """False for types without a byte size (strings, sequences): counted as 0."""


def tensor_size(type_: Attribute, dynamic_dim: int = 1) -> TensorSize:
    """The bytes of a tensor or scalar type (a tensor.extract's i1)."""
    if not isinstance(type_, TensorType):
        try:
            return TensorSize(numpy_dtype(type_).itemsize, False)
        except ValueError:
            return TensorSize(0, False, sized=False)
    try:
        element_bytes = numpy_dtype(type_.element_type).itemsize
    except ValueError:
        return TensorSize(0, False, sized=False)
    dims = type_.get_shape()
    dynamic = any(d < 0 for d in dims)
    count = math.prod(dynamic_dim if d < 0 else d for d in dims)
    return TensorSize(count * element_bytes, dynamic)
