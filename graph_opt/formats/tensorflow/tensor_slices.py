"""How TensorFlow names a part of a tensor saved in slices (a partitioned
variable's `part_N`): the Saver's "shape slice" strings, and the index key of
each slice a checkpoint stores.

A spec such as `"130 3 65,65:-"` is the whole tensor's shape and, per
dimension, `start,length` or `-` for all of it (TensorSlice::Parse). A
checkpoint stores such a tensor as an entry of the whole shape listing its
slices, and each slice under the key `EncodeTensorNameSlice` gives it
(tensorflow/core/util/saved_tensor_slice_util.cc): OrderedCode's number 0, the
name as an OrderedCode string, then the rank and each dimension's start and
length (-1: all of it) as OrderedCode numbers
(tensorflow/core/lib/strings/ordered_code.cc).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

Extents = tuple[tuple[int, int], ...]
"""(start, length) per dimension of a part of a tensor."""

_SPEC = re.compile(r"(?:\d+ )+(?:-|\d+,\d+)(?::(?:-|\d+,\d+))*")


def parse_slice_spec(spec: str) -> tuple[list[int], Extents] | None:
    """The whole shape and the extents a Saver's shape-and-slice string names,
    None for "" (the whole tensor); ValueError if malformed."""
    if not spec:
        return None
    if not _SPEC.fullmatch(spec):
        raise ValueError(f"'{spec}' is not a shape and slice")
    *dims, slices = spec.split(" ")
    shape = [int(d) for d in dims]
    parts = slices.split(":")
    if len(parts) != len(shape):
        raise ValueError(f"'{spec}' slices {len(parts)} of {len(shape)} dimensions")
    extents = []
    for size, part in zip(shape, parts):
        start, length = (0, size) if part == "-" else map(int, part.split(","))
        if start + length > size or length < 1:
            raise ValueError(f"'{spec}' reaches past its shape")
        extents.append((start, length))
    return shape, tuple(extents)


def slice_key(name: str, extents: Sequence[tuple[int, int]]) -> bytes:
    """The index key of the stored slice `extents` of tensor `name` (a length
    of -1 for a whole dimension)."""
    key = _unsigned(0) + _string(name.encode()) + _unsigned(len(extents))
    for start, length in extents:
        key += _signed(start) + _signed(length)
    return key


def _unsigned(n: int) -> bytes:
    """OrderedCode::WriteNumIncreasing: the byte count, then big-endian bytes."""
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([len(body)]) + body


def _string(data: bytes) -> bytes:
    """OrderedCode::WriteString: 0x00 and 0xff escaped, ended by 00 01."""
    escapes = {0x00: b"\x00\xff", 0xFF: b"\xff\x00"}
    return b"".join(escapes.get(b, bytes([b])) for b in data) + b"\x00\x01"


def _signed(n: int) -> bytes:
    """OrderedCode::WriteSignedNumIncreasing: two's complement in the fewest
    bytes holding 7 bits per byte, that many leading bits flipped as a header."""
    length = (~n if n < 0 else n).bit_length() // 7 + 1
    body = bytearray((n % (1 << 8 * length)).to_bytes(length, "big"))
    header = (0xFFFF << (16 - length)) & 0xFFFF
    body[0] ^= header >> 8
    if length > 1:
        body[1] ^= header & 0xFF
    return bytes(body)
