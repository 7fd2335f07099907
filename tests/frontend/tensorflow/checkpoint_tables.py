"""Writing checkpoint index tables (LevelDB format) for tests: the entries of a
real index, changed, laid out again with valid checksums, so that only the
damage a test makes is there."""

from __future__ import annotations

import struct

from graph_opt.frontend.tensorflow.crc32c import crc32c
from graph_opt.frontend.tensorflow.tensor_bundle import FOOTER_SIZE, TABLE_MAGIC


def mask(crc: int) -> int:
    """The form in which TensorFlow stores a CRC (tensorflow/core/lib/hash/crc32c.h)."""
    rotated = ((crc >> 15) | (crc << 17)) & 0xFFFFFFFF
    return (rotated + 0xA282EAD8) & 0xFFFFFFFF


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def block(entries: list[tuple[bytes, bytes]]) -> bytes:
    """A block without prefix compression: one restart point at its start."""
    body = b"".join(
        varint(0) + varint(len(k)) + varint(len(v)) + k + v for k, v in entries
    )
    return body + struct.pack("<II", 0, 1)


def with_trailer(contents: bytes) -> bytes:
    return contents + b"\0" + struct.pack("<I", mask(crc32c(contents + b"\0")))


def handle(offset: int, size: int) -> bytes:
    return varint(offset) + varint(size)


def write_table(entries: list[tuple[bytes, bytes]], index_repeats: int = 1) -> bytes:
    """A table of one data block holding `entries`; its index points at that
    block `index_repeats` times."""
    return table_of_block(block(entries), entries[-1][0], index_repeats)


def table_of_block(data: bytes, last_key: bytes, index_repeats: int = 1) -> bytes:
    """A table whose one data block is `data`, entries encoded as they may be."""
    out = bytearray(with_trailer(data))
    meta = block([])
    meta_handle = handle(len(out), len(meta))
    out += with_trailer(meta)
    index = block([(last_key, handle(0, len(data)))] * index_repeats)
    index_handle = handle(len(out), len(index))
    out += with_trailer(index)
    footer = (meta_handle + index_handle).ljust(FOOTER_SIZE - 8, b"\0")
    return bytes(out + footer + struct.pack("<Q", TABLE_MAGIC))
