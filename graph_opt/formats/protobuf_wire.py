"""The protobuf wire format, for the writers that splice weight bytes into a
message without building it whole (ONNX and GraphDef streaming)."""

from __future__ import annotations

LENGTH_DELIMITED = 2
"""The wire type of bytes, strings and nested messages."""


def varint(value: int) -> bytes:
    """`value` (>= 0) as a base-128 varint."""
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def length_delimited_key(field: int) -> bytes:
    """The key of length-delimited field number `field`."""
    return varint(field << 3 | LENGTH_DELIMITED)


def length_delimited_head(field: int, length: int) -> bytes:
    """The key and length that precede `length` bytes of field `field`."""
    return length_delimited_key(field) + varint(length)
