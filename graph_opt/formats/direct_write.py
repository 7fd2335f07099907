"""Writing computed weights to a file past the page cache (O_DIRECT).

A buffered write of new bytes fills page-cache pages, and on a VM whose idle
memory goes back to its host each such page is slow to get: after 15 s idle,
2.5 GB written with `pwrite` took 12 s on the project's VM, with O_DIRECT
1.4-2.0 s, and `copy_file_range` of a file 1.9-2.1 s. So the bytes a pass
computed (a `ScaledWeight`, a spilled buffer, a decoded `HexWeight`) are
written with O_DIRECT from two reused buffers, while a weight mapped from the
model read is still copied file to file. A `ScaledWeight`'s rows are read
into the buffer (`preadv`) and scaled there: no new memory, no page mapped.

O_DIRECT wants the memory, the file offset and the length aligned to the
device's logical block; `BLOCK`, a page, serves every block size up to it.
A weight starts at an offset the caller aligned; its whole blocks go direct
and its last partial block through the page cache, which no other write
shares. Where O_DIRECT is refused (a file system without it: EINVAL), for a
weight under `MIN_DIRECT_BYTES` and for a copy, the page cache is used as
before: the bytes written are the same either way.
"""

from __future__ import annotations

import errno
import mmap
import os
import stat
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from graph_opt.weights import (
    HexWeight,
    ScaledWeight,
    WeightBytes,
    copy_weight,
    write_at,
)

BLOCK = 4096
"""Alignment of the buffer, offsets and lengths of each direct write."""
STAGING_BYTES = 8 << 20
"""The reused buffer's size: a piece of a weight is computed into it."""
MIN_DIRECT_BYTES = 1 << 20
"""Weights under this size are written through the page cache."""


class DirectWriter:
    """Writes weights into the regular file open as `fd` (see the module
    docstring); a context manager whose end closes its own descriptor (`fd`
    stays open).

    Two staging buffers take turns: while a thread writes one's whole
    blocks, the next piece is read and scaled into the other, so the disk
    and the product overlap."""

    def __init__(self, fd: int):
        self.fd = fd
        self.direct = _reopened_direct(fd)
        self.buffers: list[np.ndarray] = []
        self.thread: ThreadPoolExecutor | None = None
        if self.direct is not None:
            self.buffers = [_aligned(STAGING_BYTES), _aligned(STAGING_BYTES)]
            self.thread = ThreadPoolExecutor(1, "graph-opt-direct-write")
        self.turn = 0  # the buffer being filled
        self.pending = 0  # bytes at its front not yet written
        self.position = 0  # where its first byte goes in the file
        self.writing: Future | None = None  # the other buffer's write

    def __enter__(self) -> DirectWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.thread is not None:
            self.thread.shutdown()
            self.thread = None
        if self.direct is not None:
            os.close(self.direct)
            self.direct = None

    def write(self, data, offset: int) -> None:
        """Write a weight's bytes (as `copy_weight` takes them) at `offset`."""
        if (
            self.direct is None
            or offset % BLOCK
            or len(data) < MIN_DIRECT_BYTES
            or not computed(data)
        ):
            copy_weight(data, self.fd, offset)
            return
        self.position, self.pending = offset, 0
        if type(data) is ScaledWeight:
            for piece in data.pieces(out=self._room):
                self._commit(piece.nbytes)
        else:
            for piece in _pieces(data):
                view = np.frombuffer(piece, np.uint8)
                self._room(view.nbytes)[:] = view
                self._commit(view.nbytes)
        self._wait()
        tail = self.buffers[self.turn][: self.pending]
        write_at(self.fd, tail, self.position)  # (a partial block)

    def _room(self, nbytes: int) -> np.ndarray:
        """The `nbytes` after the pending ones in the buffer being filled,
        to fill and then `_commit`."""
        needed = self.pending + nbytes
        staging = self.buffers[self.turn]
        if needed > staging.nbytes:
            grown = _aligned(-needed % BLOCK + needed)
            grown[: self.pending] = staging[: self.pending]
            self.buffers[self.turn] = staging = grown
        return staging[self.pending : needed]

    def _commit(self, nbytes: int) -> None:
        """Hand the whole blocks of the buffer being filled to the thread;
        the rest moves to the front of the other buffer, filled next."""
        self.pending += nbytes
        whole = self.pending - self.pending % BLOCK
        if not whole:
            return
        full, rest = self.buffers[self.turn], self.pending - whole
        self._wait()  # (the other buffer is free once its write is done)
        self.writing = self.thread.submit(self._write, full[:whole], self.position)
        self.turn = 1 - self.turn
        if self.buffers[self.turn].nbytes < full.nbytes:
            self.buffers[self.turn] = _aligned(full.nbytes)
        self.buffers[self.turn][:rest] = full[whole : self.pending]
        self.position += whole
        self.pending = rest

    def _write(self, blocks: np.ndarray, position: int) -> None:
        """(On the thread.) Write whole blocks, direct unless refused."""
        if self.direct is not None:
            try:
                write_at(self.direct, blocks, position)
                return
            except OSError as refused:
                if refused.errno != errno.EINVAL:
                    raise
                os.close(self.direct)  # (accepted at open, refused at write)
                self.direct = None
        write_at(self.fd, blocks, position)

    def _wait(self) -> None:
        """Wait for the write in flight (raising its error)."""
        writing, self.writing = self.writing, None
        if writing is not None:
            writing.result()


def computed(data) -> bool:
    """Whether `data`'s bytes are new: computed by a pass, not a copy of a
    file's (those `copy_weight` copies file to file)."""
    if type(data) in (ScaledWeight, HexWeight):
        return True
    return (
        type(data) is WeightBytes and data.source is not None and data.source.computed
    )


def _pieces(data: WeightBytes | HexWeight):
    """The bytes of a spilled weight or a hex blob, a piece at a time."""
    if type(data) is HexWeight:
        yield from data.pieces()
        return
    for start in range(0, data.nbytes, STAGING_BYTES):
        piece = data[start : start + STAGING_BYTES]
        yield piece
        piece.release()


def _reopened_direct(fd: int) -> int | None:
    """A second descriptor of `fd`'s file, opened for O_DIRECT writes; None
    where that is refused (no O_DIRECT, no /proc, a file system without it)."""
    flag = getattr(os, "O_DIRECT", 0)
    if not flag or not stat.S_ISREG(os.fstat(fd).st_mode):
        return None
    try:
        return os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | flag)
    except OSError:
        return None


def _aligned(nbytes: int) -> np.ndarray:
    """A zeroed buffer of `nbytes` starting on a page (an anonymous mapping)."""
    return np.frombuffer(mmap.mmap(-1, nbytes), np.uint8)
