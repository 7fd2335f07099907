"""Writing output files atomically, with the mode the user's umask asks for."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


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
