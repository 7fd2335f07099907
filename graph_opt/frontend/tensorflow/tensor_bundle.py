"""TensorFlow checkpoints (tensor bundles) without TensorFlow.

A bundle is `PREFIX.index`, a LevelDB-format sorted table (tensorflow/core/lib/
io/table_format.txt: data blocks of prefix-compressed keys with restart points,
an index block pointing at them, a 48-byte footer ending in a magic number),
whose entry "" is a BundleHeaderProto and every other entry a BundleEntryProto
(dtype, shape, shard, offset, size) locating a tensor's raw little-endian bytes
in `PREFIX.data-SSSSS-of-NNNNN` (tensorflow/core/util/tensor_bundle).
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
from google.protobuf.message import DecodeError

from graph_opt.frontend.errors import FrontendError
from graph_opt.frontend.tensorflow.schema import BundleEntryProto, BundleHeaderProto
from graph_opt.frontend.tensorflow.tensors import dtype_name, numpy_dtype, shape_dims

FOOTER_SIZE = 48
TABLE_MAGIC = 0xDB4775248B80FB57
BLOCK_TRAILER_SIZE = 5  # compression type, crc32c
DT_STRING = 7


class TableError(ValueError):
    """The index is not a well-formed sorted table."""


def _varint(data: bytes, position: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if position >= len(data) or shift > 63:
            raise TableError("truncated varint")
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7


def _block_handle(data: bytes, position: int) -> tuple[tuple[int, int], int]:
    offset, position = _varint(data, position)
    size, position = _varint(data, position)
    return (offset, size), position


def _block(table: bytes, handle: tuple[int, int]) -> bytes:
    offset, size = handle
    end = offset + size
    if end + BLOCK_TRAILER_SIZE > len(table):
        raise TableError("a block lies past the end of the file")
    if table[end] != 0:
        raise TableError("compressed blocks (snappy) are not supported")
    return table[offset:end]


def _block_entries(block: bytes) -> list[tuple[bytes, bytes]]:
    if len(block) < 4:
        raise TableError("a block is too short")
    (restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * restarts
    if limit < 0:
        raise TableError("bad restart count")
    entries, key, position = [], b"", 0
    while position < limit:
        shared, position = _varint(block, position)
        unshared, position = _varint(block, position)
        value_size, position = _varint(block, position)
        if shared > len(key) or position + unshared + value_size > limit:
            raise TableError("an entry lies past its block")
        key = key[:shared] + block[position : position + unshared]
        position += unshared
        entries.append((key, block[position : position + value_size]))
        position += value_size
    return entries


def read_table(table: bytes) -> list[tuple[bytes, bytes]]:
    """Every (key, value) of a LevelDB-format table, in key order."""
    if len(table) < FOOTER_SIZE:
        raise TableError("shorter than a table footer")
    footer = table[-FOOTER_SIZE:]
    (magic,) = struct.unpack_from("<Q", footer, FOOTER_SIZE - 8)
    if magic != TABLE_MAGIC:
        raise TableError("no table magic number")
    _, position = _block_handle(footer, 0)  # the metaindex: not needed
    index_handle, _ = _block_handle(footer, position)
    entries = []
    for _, handle_bytes in _block_entries(_block(table, index_handle)):
        handle, _ = _block_handle(handle_bytes, 0)
        entries.extend(_block_entries(_block(table, handle)))
    return entries


class TensorBundle:
    """The tensors of a checkpoint, read on demand from its data shards."""

    def __init__(self, prefix: str | Path):
        self.prefix = Path(prefix)
        index = self.prefix.with_name(self.prefix.name + ".index")
        try:
            table = index.read_bytes()
        except OSError as e:
            raise FrontendError(
                f"{index}: cannot read the checkpoint index ({e.strerror})"
            ) from e
        try:
            entries = read_table(table)
        except TableError as e:
            raise FrontendError(
                f"{index}: not a TensorFlow checkpoint index ({e})"
            ) from e
        self.entries: dict[str, BundleEntryProto] = {}
        header = BundleHeaderProto()
        try:
            for key, value in entries:
                if key == b"":
                    header.ParseFromString(value)
                else:
                    entry = BundleEntryProto()
                    entry.ParseFromString(value)
                    self.entries[key.decode("utf-8", "replace")] = entry
        except DecodeError as e:
            raise FrontendError(f"{index}: a corrupt checkpoint entry ({e})") from e
        if header.endianness != 0:
            raise FrontendError(f"{index}: big-endian checkpoints are not supported")
        self.num_shards = max(header.num_shards, 1)
        self._shards: dict[int, bytes] = {}

    def tensor(self, key: str) -> np.ndarray:
        entry = self.entries.get(key)
        if entry is None:
            raise FrontendError(f"{self.prefix}: the checkpoint has no tensor '{key}'")
        dtype = numpy_dtype(entry.dtype)
        dims = shape_dims(entry.shape) or []
        data = self._shard(entry.shard_id)
        end = entry.offset + entry.size
        if end > len(data) or entry.size != dtype.itemsize * int(np.prod(dims)):
            raise FrontendError(
                f"{self.prefix}: tensor '{key}' ({dtype_name(entry.dtype)} {dims}) "
                "does not fit its data shard"
            )
        return np.frombuffer(data, dtype, int(np.prod(dims)), entry.offset).reshape(
            dims
        )

    def string(self, key: str) -> bytes:
        """A scalar string tensor: [varint64 length][4-byte checksum][bytes]."""
        entry = self.entries.get(key)
        if entry is None or entry.dtype != DT_STRING:
            raise FrontendError(f"{self.prefix}: the checkpoint has no string '{key}'")
        data = self._shard(entry.shard_id)[entry.offset : entry.offset + entry.size]
        try:
            length, position = _varint(data, 0)
        except TableError as e:
            raise FrontendError(f"{self.prefix}: corrupt string '{key}'") from e
        start = position + 4
        if start + length > len(data):
            raise FrontendError(f"{self.prefix}: corrupt string '{key}'")
        return data[start : start + length]

    def _shard(self, shard: int) -> bytes:
        if shard not in self._shards:
            path = self.prefix.with_name(
                f"{self.prefix.name}.data-{shard:05d}-of-{self.num_shards:05d}"
            )
            try:
                self._shards[shard] = path.read_bytes()
            except OSError as e:
                raise FrontendError(
                    f"{path}: cannot read the checkpoint data ({e.strerror})"
                ) from e
        return self._shards[shard]
