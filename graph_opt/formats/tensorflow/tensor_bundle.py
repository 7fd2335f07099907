"""TensorFlow checkpoints (tensor bundles) without TensorFlow.

A bundle is `PREFIX.index`, a LevelDB-format sorted table (tensorflow/core/lib/
io/table_format.txt: data blocks of prefix-compressed keys with restart points,
an index block pointing at them, a 48-byte footer ending in a magic number),
whose entry "" is a BundleHeaderProto and every other entry a BundleEntryProto
(dtype, shape, shard, offset, size) locating a tensor's raw little-endian bytes
in `PREFIX.data-SSSSS-of-NNNNN` (tensorflow/core/util/tensor_bundle).

As TensorFlow does, every block's and every tensor's masked CRC-32C is checked
(a mismatch is data loss); beyond that, blocks and tensors may not overlap, so
an index decodes to no more than its files hold. Files are read through
`model_files`: from inside the model's directory, regular files only.

A large tensor can be had mapped instead of read (`TensorBundle.mapped`): its
shard is mapped once and the tensor is a `WeightBytes` region of it. Its CRC is
still checked when it is mapped, as TensorFlow checks it at restore: the check
reads the bytes a piece at a time and gives each piece's pages back, so a
damaged tensor is refused at import while the weight stays out of memory until
something reads its values.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path

import numpy as np
from google.protobuf.message import DecodeError

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.model_files import ModelDirectory, ModelFile
from graph_opt.formats.tensorflow.crc32c import crc32c, unmask
from graph_opt.formats.tensorflow.schema import BundleEntryProto, BundleHeaderProto
from graph_opt.formats.tensorflow.tensor_slices import Extents, slice_key
from graph_opt.formats.tensorflow.tensors import dtype_name, numpy_dtype, shape_dims
from graph_opt.weights import MappedFile, WeightBytes

FOOTER_SIZE = 48
TABLE_MAGIC = 0xDB4775248B80FB57
BLOCK_TRAILER_SIZE = 5  # compression type, crc32c
DT_STRING = 7
KEY_BYTES_PER_TABLE_BYTE = 64
CHECK_PIECE_BYTES = 16 << 20
"""A mapped tensor's CRC is taken this many bytes at a time (then released)."""
"""Prefix-compressed keys may decode to at most this many times the index's size."""


def _slice_label(key: bytes) -> str:
    """A stored slice's key, shown by its tensor's name (`tensor_slices`)."""
    name = key[1:].partition(b"\x00\x01")[0]
    return f"a slice of {name.decode('utf-8', 'replace')}"


def _extents_text(extents: Extents) -> str:
    return (
        "[" + ",".join(f"{start}:{start + length}" for start, length in extents) + "]"
    )


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
    (stored,) = struct.unpack_from("<I", table, end + 1)
    if crc32c(memoryview(table)[offset : end + 1]) != unmask(stored):
        raise TableError(f"the checksum of the block at offset {offset} does not match")
    if table[end] != 0:
        raise TableError("compressed blocks (snappy) are not supported")
    return table[offset:end]


def _block_entries(block: bytes, key_budget: list[int]) -> list[tuple[bytes, bytes]]:
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
        key_budget[0] -= len(key)
        if key_budget[0] < 0:
            raise TableError("its keys decode to far more than the file holds")
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
    key_budget = [KEY_BYTES_PER_TABLE_BYTE * len(table)]
    entries, end = [], 0
    for _, handle_bytes in _block_entries(_block(table, index_handle), key_budget):
        handle, _ = _block_handle(handle_bytes, 0)
        if handle[0] < end:  # data blocks follow one another, as written
            raise TableError(f"the block at offset {handle[0]} overlaps another")
        end = handle[0] + handle[1] + BLOCK_TRAILER_SIZE
        entries.extend(_block_entries(_block(table, handle), key_budget))
    return entries


class TensorBundle:
    """The tensors of a checkpoint, each read on demand from its data shard and
    checked against its CRC-32C. Its files are read from inside `directory`
    (by default the prefix's)."""

    def __init__(self, prefix: str | Path, directory: str | Path | None = None):
        self.prefix = Path(prefix)
        directory = Path(directory) if directory is not None else self.prefix.parent
        self.files = ModelDirectory(directory)
        self._name = self.prefix.relative_to(directory)
        index = self.prefix.with_name(self.prefix.name + ".index")
        table = self.files.read(
            self._name.with_name(index.name), what="the checkpoint index"
        )
        try:
            entries = read_table(table)
        except TableError as e:
            raise FrontendError(
                f"{index}: not a TensorFlow checkpoint index ({e})"
            ) from e
        self.entries: dict[str, BundleEntryProto] = {}
        self.slices: dict[bytes, BundleEntryProto] = {}
        """The stored slices of tensors saved in slices, by their keys (`tensor_slices`)."""
        header = BundleHeaderProto()
        try:
            for key, value in entries:
                if key == b"":
                    header.ParseFromString(value)
                    continue
                entry = BundleEntryProto()
                entry.ParseFromString(value)
                if key.startswith(b"\x00"):
                    self.slices[key] = entry
                else:
                    self.entries[key.decode("utf-8", "replace")] = entry
        except DecodeError as e:
            raise FrontendError(f"{index}: a corrupt checkpoint entry ({e})") from e
        if header.endianness != 0:
            raise FrontendError(f"{index}: big-endian checkpoints are not supported")
        self.num_shards = max(header.num_shards, 1)
        self._shards: dict[int, tuple[ModelFile, MappedFile]] = {}
        self._check_placement(index)

    def _check_placement(self, index: Path) -> None:
        """Refuse entries in a shard that does not exist, or sharing bytes (an
        index of a few bytes would otherwise decode to many copies of one tensor)."""
        named = [*self.entries.items()] + [
            (_slice_label(key), entry) for key, entry in self.slices.items()
        ]
        placed = sorted(
            (entry.shard_id, entry.offset, entry.offset + entry.size, key)
            for key, entry in named
            if entry.size
        )
        previous = (-1, 0, 0, "")
        for shard, start, end, key in placed:
            if not 0 <= shard < self.num_shards or not 0 <= start < end:
                raise FrontendError(
                    f"{index}: tensor '{key}' lies outside the checkpoint's shards"
                )
            if shard == previous[0] and start < previous[2]:
                raise FrontendError(
                    f"{index}: tensors '{previous[3]}' and '{key}' overlap in "
                    f"shard {shard}: a corrupt checkpoint"
                )
            previous = (shard, start, end, key)

    def tensor(self, key: str) -> np.ndarray:
        entry, dtype, dims = self._checked_entry(key)
        data = self._bytes(entry)
        self._check_crc(key, entry, crc32c(data))
        return np.frombuffer(data, dtype, math.prod(dims)).reshape(dims)

    def mapped(self, key: str) -> WeightBytes:
        """The tensor's bytes, mapped from its shard (its CRC checked: see the
        module's doc)."""
        entry, _, _ = self._checked_entry(key)
        file, mapping = self._shard(entry.shard_id)
        region = mapping.region(entry.offset, file.span(entry.offset, entry.size))
        crc = 0
        for start in range(0, region.nbytes, CHECK_PIECE_BYTES):
            piece = region[start : start + CHECK_PIECE_BYTES]
            crc = crc32c(piece, crc)
            piece.release()
        self._check_crc(key, entry, crc)
        return region

    def stored_part(self, key: str, extents: Extents) -> str | None:
        """The key of the tensor holding exactly the part `extents` of tensor
        `key`: `key` itself, stored whole and wanted whole, or one of its
        stored slices (then entered as a tensor of its own); None when the
        part is to be assembled (`assembled_part`)."""
        for part, part_key in self._stored_parts(key):
            if part == tuple(extents):
                return part_key
        return None

    def assembled_part(self, key: str, extents: Extents) -> np.ndarray:
        """The part `extents` of tensor `key`, copied from the stored slices
        (or the whole tensor) it overlaps, as TensorFlow's checkpoint reader
        assembles it; refused unless they cover it once. The slices are
        checked to lie in their shards and to add up to the part before it is
        allocated: a part is never larger than the bytes stored for it."""
        dtype = numpy_dtype(self.entries[key].dtype)
        shape = [length for _, length in extents]
        pieces, covered = [], 0
        for stored, part_key in self._stored_parts(key):
            common = [
                (max(s, w), min(s + n, w + m))
                for (s, n), (w, m) in zip(stored, extents)
            ]
            if any(start >= end for start, end in common):
                continue
            entry, _, _ = self._checked_entry(part_key)
            self._shard(entry.shard_id)[0].span(entry.offset, entry.size)
            covered += math.prod(end - start for start, end in common)
            source = tuple(
                slice(a - s, b - s) for (a, b), (s, _) in zip(common, stored)
            )
            target = tuple(
                slice(a - w, b - w) for (a, b), (w, _) in zip(common, extents)
            )
            pieces.append((part_key, source, target))
        if covered > math.prod(shape):
            raise FrontendError(f"{self.prefix}: slices of '{key}' overlap")
        if covered < math.prod(shape):
            raise self._not_covered(key, extents)
        part, filled = np.empty(shape, dtype), np.zeros(shape, bool)
        for part_key, source, target in pieces:
            if filled[target].any():
                raise FrontendError(f"{self.prefix}: slices of '{key}' overlap")
            part[target] = self.tensor(part_key)[source]
            filled[target] = True
        if not filled.all():
            raise self._not_covered(key, extents)
        return part

    def _not_covered(self, key: str, extents: Extents) -> FrontendError:
        return FrontendError(
            f"{self.prefix}: the slices of '{key}' stored do not cover "
            f"{_extents_text(extents)}"
        )

    def _stored_parts(self, key: str) -> list[tuple[Extents, str]]:
        """The parts of tensor `key` the checkpoint stores, and their keys."""
        entry = self.entries[key]
        dims = shape_dims(entry.shape) or []
        if not entry.slices:
            return [(tuple((0, size) for size in dims), key)]
        parts = []
        for stored in entry.slices:
            extents = tuple(
                (e.start, e.length if e.HasField("length") else -1)
                for e in stored.extent
            )
            found = self.slices.get(slice_key(key, extents))
            whole = tuple(
                (s, size if n == -1 else n) for (s, n), size in zip(extents, dims)
            )
            label = f"{key}{_extents_text(whole)}"
            if (
                found is None
                or len(extents) != len(dims)
                or found.dtype != entry.dtype
                or shape_dims(found.shape) != [n for _, n in whole]
                or any(s < 0 or s + n > size for (s, n), size in zip(whole, dims))
            ):
                raise FrontendError(
                    f"{self.prefix}: slice {label} is missing or does not fit "
                    f"'{key}' {dims}: a corrupt checkpoint"
                )
            self.entries[label] = found
            parts.append((whole, label))
        return parts

    def _checked_entry(self, key: str) -> tuple[BundleEntryProto, np.dtype, list]:
        """The entry of `key`, its dtype and dims, its size checked against them."""
        entry = self.entries.get(key)
        if entry is None:
            raise FrontendError(f"{self.prefix}: the checkpoint has no tensor '{key}'")
        dtype = numpy_dtype(entry.dtype)
        dims = shape_dims(entry.shape) or []
        if min(dims, default=0) < 0 or entry.size != dtype.itemsize * math.prod(dims):
            raise FrontendError(
                f"{self.prefix}: tensor '{key}' ({dtype_name(entry.dtype)} {dims}) "
                f"does not fit its {entry.size} bytes"
            )
        return entry, dtype, dims

    def string(self, key: str) -> bytes:
        """A scalar string tensor: [varint64 length][masked CRC-32C of the length
        as a uint32][bytes], its CRC taken over the length, the length's CRC
        and the bytes."""
        entry = self.entries.get(key)
        if entry is None or entry.dtype != DT_STRING:
            raise FrontendError(f"{self.prefix}: the checkpoint has no string '{key}'")
        data = self._bytes(entry)
        try:
            length, position = _varint(data, 0)
        except TableError as e:
            raise FrontendError(f"{self.prefix}: corrupt string '{key}'") from e
        start = position + 4
        if start + length > len(data):
            raise FrontendError(f"{self.prefix}: corrupt string '{key}'")
        width = "<I" if length <= 0xFFFFFFFF else "<Q"
        length_crc = crc32c(struct.pack(width, length))
        (stored,) = struct.unpack_from("<I", data, position)
        if unmask(stored) != length_crc:
            raise FrontendError(
                f"{self.prefix}: the checksum of string '{key}' does not match "
                "its length: the checkpoint is damaged"
            )
        crc = crc32c(
            data[start : start + length], crc32c(data[position:start], length_crc)
        )
        self._check_crc(key, entry, crc)
        return data[start : start + length]

    def _bytes(self, entry: BundleEntryProto) -> bytes:
        """The entry's bytes, read from its shard alone (never the whole shard)."""
        return self.files.read(
            self._shard_name(entry.shard_id), entry.offset, entry.size, self._DATA
        )

    _DATA = "the checkpoint data"

    def _shard_name(self, shard: int) -> Path:
        name = f"{self._name.name}.data-{shard:05d}-of-{self.num_shards:05d}"
        return self._name.with_name(name)

    def _shard(self, shard: int) -> tuple[ModelFile, MappedFile]:
        """A shard, opened (and closed: its size kept for the bounds) and mapped once."""
        if shard not in self._shards:
            with self.files.open(self._shard_name(shard), self._DATA) as file:
                self._shards[shard] = (file, file.map())
        return self._shards[shard]

    def _check_crc(self, key: str, entry: BundleEntryProto, crc: int) -> None:
        """As TensorFlow's reader: a tensor whose CRC-32C differs from the
        entry's is data loss."""
        if crc != unmask(entry.crc32c):
            raise FrontendError(
                f"{self.prefix}: the checksum of tensor '{key}' does not match "
                "its data: the checkpoint is damaged"
            )
