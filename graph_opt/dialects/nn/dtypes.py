"""Mapping between MLIR element types and numpy dtypes."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

_SIGNED = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
_UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
_FLOATS: dict[type[Attribute], type] = {
    Float16Type: np.float16,
    BFloat16Type: ml_dtypes.bfloat16,
    Float32Type: np.float32,
    Float64Type: np.float64,
    Float8E4M3FNType: ml_dtypes.float8_e4m3fn,
    Float8E4M3FNUZType: ml_dtypes.float8_e4m3fnuz,
    Float8E5M2Type: ml_dtypes.float8_e5m2,
    Float8E5M2FNUZType: ml_dtypes.float8_e5m2fnuz,
}


_ML_FLOATS = frozenset(np.dtype(d) for d in _FLOATS.values() if np.dtype(d).kind != "f")


def is_float_dtype(dtype: np.dtype | type) -> bool:
    """True for every floating dtype, also ml_dtypes' bfloat16 and float8 types,
    which numpy files under kind "V" and `np.floating` does not include."""
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or dtype in _ML_FLOATS


def float_info(dtype: np.dtype | type) -> ml_dtypes.finfo:
    """`np.finfo` that also knows bfloat16 and the float8 types."""
    return ml_dtypes.finfo(dtype)


def numpy_dtype(element_type: Attribute) -> np.dtype:
    """The numpy dtype that holds values of an MLIR element type."""
    if float_dtype := _FLOATS.get(type(element_type)):
        return np.dtype(float_dtype)
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        if width == 1:
            return np.dtype(np.bool_)
        table = (
            _UNSIGNED
            if element_type.signedness.data == Signedness.UNSIGNED
            else _SIGNED
        )
        if width in table:
            return np.dtype(table[width])
    raise ValueError(f"no numpy dtype for element type {element_type}")


def element_type(dtype: np.dtype | type) -> Attribute:
    """The MLIR element type of a numpy dtype (signless for signed integers)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return IntegerType(1)
    for attr_type, float_dtype in _FLOATS.items():
        if dtype == np.dtype(float_dtype):
            return attr_type()
    if dtype.kind == "i":
        return IntegerType(dtype.itemsize * 8)
    if dtype.kind == "u":
        return IntegerType(dtype.itemsize * 8, Signedness.UNSIGNED)
    raise ValueError(f"no MLIR element type for numpy dtype {dtype}")
