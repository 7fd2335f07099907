"""`dense<...>` literals as xDSL 0.74's `DenseIntOrFPElementsAttr.print_builtin` writes
them, without a printer call per element.

The rules are xDSL's: empty `dense<>`; a splat (every element equal to the first)
as its one element; more than 100 elements as a hex string; otherwise nested
lists. A float prints as `%.5e` with a `0` before the exponent when that reads
back to the same value in its type, else with 9 (f32) or 17 (f64) significant
digits; NaN and infinities as their bits in hex. Where xDSL 0.74 loses bits,
the text keeps them, as upstream MLIR's does: float splats are found by
comparing bits (xDSL's `==` merges 0.0 and -0.0, NaN never equals itself), and
a NaN's hex is its own bits (xDSL's goes through a Python float: f16 payloads
become 0x7e00, f32 signalling NaNs are quieted). bf16 is printed here too.
tests/formats/mlir/test_dense_text.py compares with xDSL's printer on random and
special values, tests/formats/mlir/test_float_bits.py reads every bit pattern back.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    i1,
)

from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.weights import as_bytes

STRUCT_FLOATS = (Float16Type, Float32Type, Float64Type)
FLOATS = (*STRUCT_FLOATS, BFloat16Type)

HEX_ABOVE = 100
"""Literals of more elements than this print as hex."""


def dense_text(attr: DenseIntOrFPElementsAttr, type_text: str) -> str | None:
    """The literal with its type (`dense<...> : tensor<...>`); None for element types
    left to xDSL (complex, and floats other than f16, bf16, f32, f64)."""
    literal = dense_literal(attr)
    return None if literal is None else f"{literal} : {type_text}"


def dense_literal(attr: DenseIntOrFPElementsAttr) -> str | None:
    """`dense_text` without the type."""
    element_type = attr.type.element_type
    printer = _element_printer(element_type)
    if printer is None:
        return None
    element_text, size = printer
    data = as_bytes(attr.data.data)  # (a mapped weight is read to print it)
    length = len(data) // size
    if length == 0:
        body = ""
    elif _prints_as_hex(data, element_type, length):
        body = f'"0x{data.hex().upper()}"'
    else:
        values = _values(element_type, data, length)  # (`attr.get_values()`)
        if _is_splat(values, data, element_type, size):
            body = element_text(values[0]) or _bits_text(data, 0, size)
        else:
            shape = attr.type.get_shape()
            if min(shape, default=1) < 1 or math.prod(shape) != length:
                shape = (length,)  # (`attr.shape_is_complete`)
            texts = [
                element_text(value) or _bits_text(data, index, size)
                for index, value in enumerate(values)
            ]
            body = _nested(texts, shape)
    return f"dense<{body}>"


def _values(element_type, data: bytes, length: int) -> Sequence:
    if isinstance(element_type, BFloat16Type):  # exact in f32
        return np.frombuffer(data, numpy_dtype(element_type)).astype("f4").tolist()
    return element_type.unpack(data, length)


def _is_splat(values: Sequence, data: bytes, element_type, size: int) -> bool:
    """Floats by their bits, integers by value (xDSL's i1 true can be 1 or 0xFF)."""
    if type(element_type) in FLOATS:
        return data == data[:size] * len(values)
    return values.count(values[0]) == len(values)


def _bits_text(data: bytes, index: int, size: int) -> str:
    """A float element's bits in hex, as xDSL prints NaN and infinities."""
    return f"0x{data[index * size : (index + 1) * size][::-1].hex()}"


def hex_data(attr: DenseIntOrFPElementsAttr) -> bytes | None:
    """The bytes `dense_text` writes as hex digits (`dense<"0x...">`), or None if it
    writes the literal otherwise."""
    element_type = attr.type.element_type
    printer = _element_printer(element_type)
    if printer is None:
        return None
    data = as_bytes(attr.data.data)
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
    """`_is_splat` without unpacking to Python numbers."""
    size = element_type.compile_time_size
    if type(element_type) in FLOATS:
        dtype = np.dtype(f"<u{size}")  # bits
    else:
        try:
            dtype = np.dtype(element_type.format)
        except TypeError:
            dtype = None
    if dtype is None or dtype.itemsize != size:
        values = list(element_type.iter_unpack(data))
        return values.count(values[0]) == length
    array = np.frombuffer(data, dtype)
    if array[1] != array[0]:  # most weights: no pass over them all
        return False
    return bool((array == array[0]).all())


@cache
def _element_printer(element_type) -> tuple[Callable[[float], str | None], int] | None:
    """The text of one element (None for a float that prints as its bits), and the
    element's size in bytes."""
    if isinstance(element_type, IntegerType | IndexType):
        if element_type == i1:
            return (
                lambda value: "true" if value else "false"
            ), element_type.compile_time_size
        return (lambda value: f"{value:d}"), element_type.compile_time_size
    if type(element_type) in STRUCT_FLOATS:
        return _float_printer(element_type), element_type.compile_time_size
    if isinstance(element_type, BFloat16Type):
        return _short_float_text, element_type.compile_time_size
    return None  # complex, or a float `struct` cannot pack (f8, f80, ...)


def _short_float_text(value: float) -> str | None:
    """`Printer.print_float` of a type whose values all read back from `%.5e` (bf16)."""
    if not math.isfinite(value):
        return None
    return f"{value:.5e}".replace("e", "0e")


def _float_printer(float_type) -> Callable[[float], str | None]:
    """`Printer.print_float` for one float type, None for NaN and infinities."""
    layout = struct.Struct(float_type.format)
    pack, unpack = layout.pack, layout.unpack
    if isinstance(float_type, Float32Type):
        digits, bits = "{:.9g}", struct.Struct("<I")
    elif isinstance(float_type, Float64Type):
        digits, bits = "{:.17g}", struct.Struct("<Q")
    else:
        digits, bits = None, None
    isfinite = math.isfinite

    def text(value: float) -> str | None:
        if not isfinite(value):
            return None
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
