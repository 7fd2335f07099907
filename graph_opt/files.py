"""Reading input files without copying them; writing output files atomically, with
the mode the user's umask asks for."""

from __future__ import annotations

import io
import mmap
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, BinaryIO


@contextmanager
def mapped(stream: IO[bytes]) -> Iterator[bytes | mmap.mmap]:
    """The bytes of `stream`: a read-only map of a regular file read from its start
    (no copy: the pages are the file's in the page cache, as LLVM's MemoryBuffer
    maps the files mlir-opt reads), else what `read()` returns. As with mlir-opt,
    a file cut short while it is read ends the process (SIGBUS)."""
    try:
        if stream.tell() != 0:
            raise io.UnsupportedOperation("not at the start")
        view = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # a pipe, an empty file, not a file at all
        view = None
    if view is None:
        yield stream.read()
        return
    with view:
        yield view


def chmod_for_umask(path: str | os.PathLike) -> None:
    """Give a temporary file the mode a plain `open(path, "w")` would (0o666 & ~umask)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)


def write_atomically(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path` through a temporary file, so a failure leaves no partial file."""
    with writing_atomically(path) as out:
        out.write(data)


@contextmanager
def writing_atomically(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary stream to a temporary file that becomes `path` when the block
    ends normally, and is removed otherwise."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=".graph-opt-", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as out:
            yield out
        chmod_for_umask(temporary)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
