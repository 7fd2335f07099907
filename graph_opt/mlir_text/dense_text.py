"""`dense<...>` literals as xDSL 0.74's `DenseIntOrFPElementsAttr.print_builtin` writes
them, without a printer call per element.

The rules are xDSL's: empty `dense<>`; a splat (every element equal to the first,
by Python's `list.count`) as its one element; more than 100 elements as a hex
string; otherwise nested lists. A float prints as `%.5e` with a `0` before the
exponent when that reads back to the same value in its type, else with 9 (f32)
or 17 (f64) significant digits; NaN and infinities as their bits in hex.
tests/mlir_text/test_dense_text.py compares with xDSL's printer on random and
special values.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    i1,
)

STRUCT_FLOATS = (Float16Type, Float32Type, Float64Type)

HEX_ABOVE = 100
"""Literals of more elements than this print as hex."""


def dense_text(attr: DenseIntOrFPElementsAttr, type_text: str) -> str | None:
    """The literal with its type (`dense<...> : tensor<...>`); None for element types
    left to xDSL (complex, and floats other than f16, f32, f64)."""
    element_type = attr.type.element_type
    printer = _element_printer(element_type)
    if printer is None:
        return None
    element_text, size = printer
    data = attr.data.data
    length = len(data) // size
    if length == 0:
        body = ""
    elif _prints_as_hex(data, element_type, length):
        body = f'"0x{data.hex().upper()}"'
    else:
        values = element_type.unpack(data, length)  # (`attr.get_values()`)
        if values.count(values[0]) == length:
            body = element_text(values[0])
        else:
            shape = attr.type.get_shape()
            if min(shape, default=1) < 1 or math.prod(shape) != length:
                shape = (length,)  # (`attr.shape_is_complete`)
            body = _nested(list(map(element_text, values)), shape)
    return f"dense<{body}> : {type_text}"


def hex_data(attr: DenseIntOrFPElementsAttr) -> bytes | None:
    """The bytes `dense_text` writes as hex digits (`dense<"0x...">`), or None if it
    writes the literal otherwise."""
    element_type = attr.type.element_type
    printer = _element_printer(element_type)
    if printer is None:
        return None
    data = attr.data.data
    return data if _prints_as_hex(data, element_type, len(data) // printer[1]) else None


def _prints_as_hex(data: bytes, element_type, length: int) -> bool:
    return length > HEX_ABOVE and not _is_splat_buffer(data, element_type, length)


def _nested(texts: list[str], shape: Sequence[int]) -> str:
    """Nested lists, built from the innermost dimension out."""
    items = texts
    for size in reversed(shape):
        items = [
            "[" + ", ".join(items[i : i + size]) + "]"
            for i in range(0, len(items), size)
        ]
    return items[0]


def _is_splat_buffer(data: bytes, element_type, length: int) -> bool:
    """`values.count(values[0]) == length` without unpacking to Python numbers."""
    try:
        dtype = np.dtype(element_type.format)
    except TypeError:
        dtype = None
    if dtype is None or dtype.itemsize != element_type.compile_time_size:
        values = list(element_type.iter_unpack(data))
        return values.count(values[0]) == length
    array = np.frombuffer(data, dtype)
    if array[1] != array[0]:  # most weights: no pass over them all
        return False
    return bool((array == array[0]).all())


@cache
def _element_printer(element_type) -> tuple[Callable[[float], str], int] | None:
    """The text of one element, and the element's size in bytes."""
    if isinstance(element_type, IntegerType | IndexType):
        if element_type == i1:
            return (
                lambda value: "true" if value else "false"
            ), element_type.compile_time_size
        return (lambda value: f"{value:d}"), element_type.compile_time_size
    if type(element_type) in STRUCT_FLOATS:
        return _float_printer(element_type), element_type.compile_time_size
    return None  # complex, or a float `struct` cannot pack (bf16, f8, f80, ...)


def _float_printer(float_type) -> Callable[[float], str]:
    """`Printer.print_float` for one float type."""
    layout = struct.Struct(float_type.format)
    pack, unpack = layout.pack, layout.unpack
    if isinstance(float_type, Float32Type):
        digits, bits = "{:.9g}", struct.Struct("<I")
    elif isinstance(float_type, Float64Type):
        digits, bits = "{:.17g}", struct.Struct("<Q")
    else:
        digits, bits = None, None
    isfinite = math.isfinite

    def text(value: float) -> str:
        if not isfinite(value):
            return f"0x{pack(value)[::-1].hex()}"
        short = f"{value:.5e}"
        if unpack(pack(float(short)))[0] == value:  # (the 0 added changes no value)
            return short.replace("e", "0e")
        if digits is None:
            return f"{value!r}"
        long = digits.format(value)
        if "." in long:
            return long
        return f"0x{bits.unpack(pack(value))[0]:X}"

    return text
