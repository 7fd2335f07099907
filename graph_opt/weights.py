"""Weights whose bytes live in a file: mapped, never copied at import.

A `MappedFile` maps a model file (ONNX external data) read-only and keeps it
open; `MappedFile.region` gives a `WeightBytes`, the bytes of one weight, which
a constant holds where it would hold `bytes` (a dense attribute's BytesAttr).
A `WeightBytes` is a read-only uint8 numpy view of the mapping: every reader
that takes a buffer (`np.frombuffer`, `memoryview`, `struct`) reads it in place,
and the pages it reads are the only ones loaded. Nothing else reads them:

- a `WeightBytes` hashes and compares by where its bytes lie (two handles of
  one region are equal), never by content, so putting a constant in a dict or
  comparing two constants does not read a weight;
- an exporter copies the bytes file to file (`copy_to`: `os.copy_file_range`)
  without mapping a page into the process;
- a pass that reads a weight's values does so through `read_weight`, which
  keeps at most `RESIDENT_BUDGET` bytes of read weights mapped in: the pages
  of the weights read longest ago are given back (`madvise(MADV_DONTNEED)`:
  read again, they come back from the file), so a pass that reads every
  weight once holds one at a time;
- a mapped weight a pass scales (fold-bn's `W * s`) stays a formula,
  `ScaledWeight`, computed when read and, at export, piece by piece as it is
  written: the product never exists whole in memory;
- another weight a pass computes goes to a spill file (`spilled`, for arrays
  of `SPILL_MIN_BYTES` or more) and is held mapped from there, as if imported.

- a weight written as hex digits in a mapped text file (an MLIR resource
  blob), `HexWeight`, is decoded when read and, at export, piece by piece as
  it is written; the file's pages are given back as it goes.

`read_weight` is the one accessor for a weight's values (a buffer), and
`copy_weight` the one that writes its bytes out without decoding them.

The mapping keeps the file's inode: the file may be removed or renamed once
loaded (a file rewritten in place under a mapping is not supported).
`resident_bytes` tells how much of the mappings is in the process (Linux).
"""

from __future__ import annotations

import atexit
import binascii
import errno
import mmap
import os
import tempfile
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator

import numpy as np

COPY_PIECE_BYTES = 1 << 30
"""At most this much per `os.copy_file_range` call."""
RESIDENT_BUDGET = 128 << 20
"""Bytes of read weights kept mapped in (the last one read always is)."""
SPILL_MIN_BYTES = 16 << 20
"""Computed weights of this size or more are spilled to a file."""

_open_mappings: weakref.WeakSet[MappedFile] = weakref.WeakSet()


class MappedFile:
    """`size` bytes from `offset` (a multiple of the page size) of a regular
    file, mapped read-only; `fd` is a descriptor of its own. `computed`: the
    file holds bytes a pass computed (the spill file), not a model's."""

    def __init__(
        self, fd: int, size: int, name: str, offset: int = 0, computed: bool = False
    ):
        self.fd = os.dup(fd)
        self.size = size
        self.name = name
        self.offset = offset
        self.computed = computed
        self.mapping: mmap.mmap | None = None
        self.bytes = np.empty(0, np.uint8)
        if size:
            self.mapping = mmap.mmap(
                self.fd, size, access=mmap.ACCESS_READ, offset=offset
            )
            self.bytes = np.frombuffer(self.mapping, np.uint8)
        self.address = self.bytes.__array_interface__["data"][0]
        weakref.finalize(self, os.close, self.fd)
        _open_mappings.add(self)

    def region(self, offset: int, length: int) -> WeightBytes:
        """The bytes [offset, offset + length) (the caller checked the bounds)."""
        view = self.bytes[offset : offset + length].view(WeightBytes)
        view.source = self
        return view


class WeightBytes(np.ndarray):
    """One weight's bytes in a `MappedFile` (see the module docstring)."""

    source: MappedFile | None = None

    def __array_finalize__(self, obj) -> None:
        self.source = getattr(obj, "source", None)

    def _where(self) -> tuple[int, int]:
        return (self.__array_interface__["data"][0], self.nbytes)

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._where())

    def __eq__(self, other) -> bool:  # type: ignore[override]
        return type(other) is WeightBytes and self._where() == other._where()

    def __ne__(self, other) -> bool:  # type: ignore[override]
        return not self == other

    def __bool__(self) -> bool:
        return self.nbytes > 0

    def file_offset(self) -> int:
        """Where the bytes start in `source`'s file."""
        source = self.source
        return self.__array_interface__["data"][0] - source.address + source.offset

    def release(self) -> None:
        """Give back the pages holding the bytes (read again, they come back)."""
        source = self.source
        start = self.__array_interface__["data"][0] - source.address
        page_start = start - start % mmap.PAGESIZE
        length = min(start + self.nbytes, source.size) - page_start
        if length > 0 and source.mapping is not None:
            source.mapping.madvise(mmap.MADV_DONTNEED, page_start, length)

    def copy_to(self, fd: int, offset: int) -> None:
        """Write the bytes at `offset` of the file `fd`, file to file where
        the kernel can, else from the mapping."""
        source, start, left = self.source, self.file_offset(), self.nbytes
        while left:
            try:
                done = os.copy_file_range(
                    source.fd, fd, min(left, COPY_PIECE_BYTES), start, offset
                )
            except OSError:  # (another file system, an old kernel)
                done = 0
            if not done:
                write_at(fd, memoryview(self)[self.nbytes - left :], offset)
                return
            start, offset, left = start + done, offset + done, left - done


def write_at(fd: int, data, offset: int) -> None:
    """`os.pwrite` of all of a buffer (which writes at most 2 GiB a call)."""
    view = memoryview(data).cast("B")
    while view:
        done = os.pwrite(fd, view[:COPY_PIECE_BYTES], offset)
        view, offset = view[done:], offset + done


def copy_weight(data, fd: int, offset: int) -> None:
    """Write a weight's bytes (bytes, `WeightBytes`, `ScaledWeight` or
    `HexWeight`) at
    `offset` of `fd`."""
    if type(data) is WeightBytes and data.source is not None:
        data.copy_to(fd, offset)
    elif type(data) in (ScaledWeight, HexWeight):
        for piece in data.pieces():
            write_at(fd, piece, offset)
            offset += memoryview(piece).nbytes
    else:
        write_at(fd, data, offset)


class ScaledWeight:
    """`base * factor` in `dtype` (`base`: a mapped weight of `shape`;
    `factor`: an array broadcasting to it), computed when read."""

    PIECE_BYTES = 8 << 20

    def __init__(self, base: WeightBytes, shape, dtype, factor: np.ndarray):
        self.base = base
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.factor = _narrowed(factor, self.dtype)

    def __len__(self) -> int:
        return self.base.nbytes

    def __bool__(self) -> bool:
        return self.base.nbytes > 0

    def values(self) -> np.ndarray:
        """The product, whole (for passes that read it)."""
        return self._product(0, self.shape[0] if self.shape else 1)

    def pieces(
        self, out: Callable[[int], np.ndarray] | None = None
    ) -> Iterator[np.ndarray]:
        """The product's bytes in order, a few rows (first axis) at a time;
        the pages of the rows read are given back as it goes. With `out`,
        each piece's rows are read from the file (`os.preadv`) into
        `out(nbytes)`, a uint8 buffer the caller reuses, and scaled there:
        no page is mapped in and no memory is new."""
        rows = self.shape[0] if self.shape else 1
        row_bytes = max(self.base.nbytes // max(rows, 1), 1)
        step = max(self.PIECE_BYTES // row_bytes, 1)
        first = self.base.file_offset() if out is not None else 0
        for start in range(0, rows, step):
            stop = min(start + step, rows)
            if out is not None:
                into = out((stop - start) * row_bytes)
                offset = first + start * row_bytes
                yield self._scaled_in_place(start, stop, into, offset)
                continue
            yield self._product(start, stop)
            self.base[start * row_bytes : stop * row_bytes].release()  # (written)

    def _product(self, start: int, stop: int) -> np.ndarray:
        base = np.frombuffer(self.base, self.dtype).reshape(self.shape or (1,))
        rows = base[start:stop]
        out = np.empty(rows.shape, self.dtype)
        factor = self._factor_rows(start, stop)  # (the product in its precision)
        return np.multiply(rows, factor, out=out, casting="unsafe")

    def _scaled_in_place(
        self, start: int, stop: int, into: np.ndarray, offset: int
    ) -> np.ndarray:
        """Rows [start, stop), at `offset` of the file, read into `into` and
        scaled there."""
        read_at(self.base.source.fd, into, offset)
        rows = into.view(self.dtype).reshape((stop - start, *self.shape[1:]))
        factor = self._factor_rows(start, stop)
        return np.multiply(rows, factor, out=rows, casting="unsafe")

    def _factor_rows(self, start: int, stop: int) -> np.ndarray:
        """The factor for rows [start, stop)."""
        factor = self.factor
        if factor.ndim == len(self.shape) and factor.shape[0] != 1:
            return factor[start:stop]
        return factor


def read_at(fd: int, buffer: np.ndarray, offset: int) -> None:
    """Fill `buffer` with the bytes at `offset` of the file `fd`."""
    view = memoryview(buffer).cast("B")
    while view:
        done = os.preadv(fd, [view], offset)
        if not done:
            raise OSError(errno.EIO, "a mapped weight's file was cut short")
        view, offset = view[done:], offset + done


def _narrowed(factor: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`factor` in the weights' float `dtype` when that holds it exactly: the
    products are the same bits (each is rounded once either way), computed
    without a cast to float64 and back (a third of the fold's time at export)."""
    if not np.issubdtype(dtype, np.floating) or factor.dtype.itemsize <= dtype.itemsize:
        return factor
    narrow = factor.astype(dtype)
    return narrow if np.array_equal(narrow, factor) else factor


class HexWeight:
    """The bytes written as the hex digits `source[start:end]` (an even
    count, checked by the maker) of a text file kept mapped, decoded when
    read; `head` is the text before them (an MLIR blob's alignment)."""

    PIECE_DIGITS = 1 << 21

    def __init__(self, source, start: int, end: int, head: bytes = b""):
        self.source = source
        self.start = start
        self.end = end
        self.head = head

    def __len__(self) -> int:
        return (self.end - self.start) // 2

    def __bool__(self) -> bool:
        return self.end > self.start

    def values(self) -> bytes:
        """The bytes, whole (for passes that read them)."""
        return b"".join(self.pieces())

    def pieces(self) -> Iterator[bytes]:
        """The bytes in order, decoded a piece at a time. Raises ValueError
        (binascii.Error) for digits that are not hex."""
        for digits in self.digit_pieces():
            yield binascii.unhexlify(digits)

    def digit_pieces(self) -> Iterator[bytes]:
        """The hex digits as written, a piece at a time; the file's pages
        read are given back as it goes."""
        with memoryview(self.source) as view:
            for start in range(self.start, self.end, self.PIECE_DIGITS):
                stop = min(start + self.PIECE_DIGITS, self.end)
                piece = bytes(view[start:stop])
                release_pages(self.source, start, stop)
                yield piece


def release_pages(source, start: int, stop: int) -> None:
    """Give back the pages wholly inside [start, stop) of `source` if it is
    a mapping (read again, they come back from the file)."""
    if type(source) is not mmap.mmap:
        return
    first = -start % mmap.PAGESIZE + start
    last = stop - stop % mmap.PAGESIZE
    if last > first:
        source.madvise(mmap.MADV_DONTNEED, first, last - first)


_read_lately: OrderedDict[tuple[int, int], weakref.ref[WeightBytes]] = OrderedDict()
"""The mapped weights read lately, oldest first (not kept alive by this)."""


def read_weight(data):
    """A buffer of the values of `data` (bytes, `WeightBytes`,
    `ScaledWeight` or `HexWeight`): a mapped weight is noted as read, and those read before it
    beyond `RESIDENT_BUDGET` are released."""
    if type(data) in (ScaledWeight, HexWeight):
        return data.values()
    if type(data) is not WeightBytes or data.source is None:
        return data
    where = data._where()
    _read_lately.pop(where, None)
    _read_lately[where] = weakref.ref(data)
    total = sum(size for _, size in _read_lately)
    while total > RESIDENT_BUDGET and len(_read_lately) > 1:
        (_, size), oldest = _read_lately.popitem(last=False)
        if (weight := oldest()) is not None:
            weight.release()
        total -= size
    return data


class _SpillFile:
    """The process's spill file (removed as soon as made), grown by appends."""

    def __init__(self):
        self.file = tempfile.TemporaryFile(prefix="graph-opt-weights-")
        self.end = 0
        atexit.register(self.file.close)  # its mappings hold their own descriptors

    def add(self, array: np.ndarray) -> WeightBytes:
        offset = -self.end % mmap.ALLOCATIONGRANULARITY + self.end
        fd = self.file.fileno()
        write_at(fd, np.ascontiguousarray(array), offset)
        self.end = offset + array.nbytes
        mapped = MappedFile(fd, array.nbytes, "a spilled weight", offset, True)
        return mapped.region(0, array.nbytes)


_spill: _SpillFile | None = None


def spilled(array: np.ndarray) -> WeightBytes:
    """A computed array's bytes, written to the spill file and mapped from it."""
    global _spill
    if _spill is None:
        _spill = _SpillFile()
    return _spill.add(array)


def as_bytes(data) -> bytes:
    """The bytes themselves (reads a mapped weight: for printers and small ones)."""
    return data if type(data) is bytes else bytes(memoryview(read_weight(data)))


def resident_bytes() -> int:
    """How many bytes of the open mappings are in this process (its page
    tables, as /proc/self/smaps counts them): the weights something read."""
    starts = {m.address for m in _open_mappings if m.size}
    total = 0
    with open("/proc/self/smaps") as smaps:
        counting = False
        for line in smaps:
            head = line.split(maxsplit=1)[0]
            if "-" in head and not head.endswith(":"):
                counting = int(head.split("-")[0], 16) in starts
            elif counting and head == "Rss:":
                total += int(line.split()[1]) * 1024
    return total
