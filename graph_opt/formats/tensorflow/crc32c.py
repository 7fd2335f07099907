"""CRC-32C (Castagnoli), masked as TensorFlow stores it in checkpoints
(tensorflow/core/lib/hash/crc32c.h), in numpy.

A CRC is linear: the CRC of two pieces laid end to end is the first's register
carried over the second's length (a fixed linear map, applied with four byte
tables) xor-ed with the second's own CRC. Long data is cut into many rows whose
registers advance together, one byte column per numpy step, then joined
pairwise, all pairs of a level at once.
"""

from __future__ import annotations

import functools

import numpy as np

_POLYNOMIAL = 0x82F63B78  # reflected
_MASK_DELTA = 0xA282EAD8
_MAX_ROWS = 1 << 16
_SHORT = 1 << 12
"""Data up to this many bytes is read one byte at a time."""
_SEGMENT = 1 << 24
"""Long data is read in segments of this many bytes (each copied once)."""


def _byte_table() -> np.ndarray:
    crc = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        crc = np.where(crc & 1, (crc >> 1) ^ np.uint32(_POLYNOMIAL), crc >> 1)
    return crc.astype(np.uint32)


_TABLE = _byte_table()
_TABLE_LIST = _TABLE.tolist()


def _advance(registers: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Registers (one per row) after the rows' bytes, given column by column."""
    for column in columns:
        registers = _TABLE[(registers.astype(np.uint8) ^ column)] ^ (registers >> 8)
    return registers


def _carry(registers: np.ndarray, tables: np.ndarray) -> np.ndarray:
    """Registers carried over the zero bytes `tables` stands for."""
    result = tables[0][registers & 0xFF]
    for k in range(1, 4):
        result ^= tables[k][registers >> (8 * k) & 0xFF]
    return result


def _tables_of(images: np.ndarray) -> np.ndarray:
    """The byte tables of the linear map sending bit b to images[b]."""
    values = np.arange(256, dtype=np.uint32)
    tables = np.zeros((4, 256), np.uint32)
    for k in range(4):
        for bit in range(8):
            tables[k] ^= np.where(values >> bit & 1, images[8 * k + bit], 0).astype(
                np.uint32
            )
    return tables


_BASIS = np.uint32(1) << np.arange(32, dtype=np.uint32)


@functools.cache
def _carry_tables(length: int) -> np.ndarray:
    """Byte tables of the register's carry over `length` zero bytes."""
    if length == 1:
        return _tables_of(_advance(_BASIS, np.zeros((1, 1), np.uint8)))
    half = _carry_tables(length // 2)
    images = _carry(_carry(_BASIS, half), half)
    if length % 2:
        images = _carry(images, _carry_tables(1))
    return _tables_of(images)


def _raw_short(register: int, data) -> int:
    table = _TABLE_LIST
    for byte in bytes(data):
        register = table[(register ^ byte) & 0xFF] ^ (register >> 8)
    return register


def _raw(register: int, data: memoryview) -> int:
    for start in range(0, len(data), _SEGMENT):
        register = _raw_segment(register, data[start : start + _SEGMENT])
    return register


def _raw_segment(register: int, data: memoryview) -> int:
    size = len(data)
    if size <= _SHORT:
        return _raw_short(register, data)
    rows = min(_MAX_ROWS, _power_of_two_below(size // 64))
    length = _power_of_two_below(size // rows)  # one carry table per length, ever
    end = rows * length
    table = np.frombuffer(data, np.uint8, end).reshape(rows, length)
    own = _advance(np.zeros(rows, np.uint32), np.ascontiguousarray(table.T))
    while len(own) > 1:  # join neighbours: rows twice as long, half as many
        own = _carry(own[0::2], _carry_tables(length)) ^ own[1::2]
        length *= 2
    carried = _carry(np.array([register], np.uint32), _carry_tables(length))
    register = int(carried[0] ^ own[0])
    return _raw_segment(register, data[end:])


def _power_of_two_below(n: int) -> int:
    """The largest power of two at most n (n >= 1)."""
    return 1 << (n.bit_length() - 1)


def crc32c(data, crc: int = 0) -> int:
    """The CRC-32C of `data` (bytes-like), extending `crc` (of earlier bytes)."""
    return _raw(crc ^ 0xFFFFFFFF, memoryview(data).cast("B")) ^ 0xFFFFFFFF


def mask(crc: int) -> int:
    """The form in which TensorFlow stores a CRC (tensorflow/core/lib/hash/crc32c.h)."""
    rotated = ((crc >> 15) | (crc << 17)) & 0xFFFFFFFF
    return (rotated + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    """The CRC a masked one stands for (TensorFlow masks the CRCs it stores)."""
    rotated = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF
