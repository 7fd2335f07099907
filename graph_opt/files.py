"""Reading input files without copying them (output files: `output_files`)."""

from __future__ import annotations

import io
import mmap
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO


@contextmanager
def mapped(stream: IO[bytes]) -> Iterator[bytes | mmap.mmap]:
    """The bytes of `stream`: a read-only map of a regular file read from its start
    (no copy: the pages are the file's in the page cache, as LLVM's MemoryBuffer
    maps the files mlir-opt reads), else what `read()` returns. The map outlives
    the block while something holds it (an MLIR resource blob read lazily,
    `weights.HexWeight`) and is unmapped when collected. As with mlir-opt, a
    file cut short while it is read ends the process (SIGBUS)."""
    try:
        if stream.tell() != 0:
            raise io.UnsupportedOperation("not at the start")
        view = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # a pipe, an empty file, not a file at all
        view = None
    if view is None:
        yield stream.read()
        return
    yield view
