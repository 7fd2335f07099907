"""Writing output files as mlir-opt does (LLVM's ToolOutputFile).

- A symlink is followed: its target is written, never the link replaced.
- A FIFO, a device (`/dev/null`, `/dev/stdout`) or another file that is not
  regular is opened and written in place.
- A regular file is written atomically: into a temporary file beside it that
  replaces it once complete, so a failure leaves the previous content. The
  replaced file keeps its mode (a 0600 file stays 0600); a new one gets the mode
  `open(path, "w")` would (0o666 & ~umask). As with LLVM's tools, a file with
  other hard links is replaced too: the other names keep the previous content.
- The temporary file is removed on any failure and on SIGTERM, SIGINT or
  SIGHUP, whose default action then ends the process as it would have.
"""

from __future__ import annotations

import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

TEMPORARY_PREFIX = ".graph-opt-"

CLEANUP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def write_output_file(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path` (see the module's docstring for how)."""
    with writing_output_file(path) as out:
        out.write(data)


@contextmanager
def writing_output_file(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary stream whose content becomes `path` when the block ends normally."""
    try:
        existing = os.stat(path)  # through symlinks
    except FileNotFoundError:
        existing = None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise IsADirectoryError(f"{path}: is a directory, not a file to write")
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        # opened by its name: /dev/stdout's target may be a pipe, not a path
        with open(path, "wb") as out:
            yield out
        return
    target = Path(os.path.realpath(path))
    mode = stat.S_IMODE(existing.st_mode) if existing else _umask_mode()
    with _temporary_removed_on_signal(target.parent) as (handle, temporary):
        try:
            with os.fdopen(handle, "wb") as out:
                yield out
            os.chmod(temporary, mode)
            os.replace(temporary, target)
        except BaseException:
            with suppress(FileNotFoundError):
                os.unlink(temporary)
            raise


def _umask_mode() -> int:
    """The mode a plain `open(path, "w")` gives a new file."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


_pending: set[str] = set()
"""Temporary files being written, removed if a signal ends the process."""

_previous_handlers: dict[int, object] = {}


@contextmanager
def _temporary_removed_on_signal(directory: Path) -> Iterator[tuple[int, str]]:
    """A new temporary file in `directory` (its descriptor and name), removed
    if a signal whose default action ends the process arrives while the block
    runs. Handlers are installed only meanwhile, and only in the main thread
    (the one Python delivers signals to); the signals are held while the file
    is made and registered, so none arrives between the two."""
    if threading.current_thread() is not threading.main_thread():
        yield tempfile.mkstemp(dir=directory, prefix=TEMPORARY_PREFIX, suffix=".tmp")
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, CLEANUP_SIGNALS)
    try:
        handle, temporary = tempfile.mkstemp(
            dir=directory, prefix=TEMPORARY_PREFIX, suffix=".tmp"
        )
        if not _pending:
            for number in CLEANUP_SIGNALS:
                previous = signal.getsignal(number)
                if (
                    previous is signal.SIG_DFL
                ):  # Python handlers (KeyboardInterrupt) unwind
                    _previous_handlers[number] = previous
                    signal.signal(number, _remove_and_resignal)
        _pending.add(temporary)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    try:
        yield handle, temporary
    finally:
        _pending.discard(temporary)
        if not _pending:
            for number, previous in _previous_handlers.items():
                signal.signal(number, previous)
            _previous_handlers.clear()


def _remove_and_resignal(number: int, frame) -> None:
    for temporary in list(_pending):
        with suppress(OSError):
            os.unlink(temporary)
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
