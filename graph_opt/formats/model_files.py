"""Every read of a file a model names (ONNX external data, a SavedModel's
checkpoint), confined to the model's directory.

A name the model gives is resolved inside the directory; the file it reaches
must stay inside it after following symlinks (one that stays inside is fine),
must be a regular file (checked on the opened descriptor, opened without
blocking, so a FIFO or a device is refused, never waited on or read), and a
read must lie within the file's size. Each refusal is a one-line FrontendError
naming the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from graph_opt.formats.errors import FrontendError
from graph_opt.weights import MappedFile

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class ModelDirectory:
    """The directory a model's files are read from, and nothing outside it."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)
        self.root = Path(os.path.realpath(directory))

    def resolve(self, name: str | os.PathLike) -> Path:
        """The real path of `name` (relative to the directory), refused unless
        it lies inside the directory."""
        if "\0" in os.fspath(name):
            raise FrontendError(f"{_shown(name)}: a file name holding a NUL byte")
        if os.path.isabs(name):
            raise FrontendError(
                f"{_shown(name)}: an absolute path, outside the model's "
                f"directory {self.directory}"
            )
        real = Path(os.path.realpath(self.root / name))
        if real != self.root and self.root not in real.parents:
            raise FrontendError(
                f"{_shown(self.directory / name)}: leads outside the model's "
                f"directory {self.directory} (to {_shown(real)})"
            )
        return real

    def read(
        self,
        name: str | os.PathLike,
        offset: int = 0,
        length: int | None = None,
        what: str = "the file",
    ) -> bytes:
        """`length` bytes of the file `name` from `offset` (to its end if None);
        `what` names the file in errors (e.g. "the checkpoint data")."""
        with self.open(name, what) as file:
            return file.read(offset, length)

    def open(self, name: str | os.PathLike, what: str = "the file") -> ModelFile:
        """The regular file `name`, open for checked reads."""
        path = self.resolve(name)
        shown = _shown(self.directory / name)
        try:
            fd = os.open(path, _OPEN_FLAGS)
        except OSError as e:
            raise FrontendError(f"{shown}: cannot read {what} ({e.strerror})") from e
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise FrontendError(
                    f"{shown}: cannot read {what} (not a regular file: {_kind(info)})"
                )
        except BaseException:
            os.close(fd)
            raise
        return ModelFile(os.fdopen(fd, "rb"), info.st_size, shown, what)


class ModelFile:
    """A regular file of the model, open: reads are checked against its size."""

    def __init__(self, stream: BinaryIO, size: int, shown: str, what: str):
        self.stream = stream
        self.size = size
        self.shown = shown
        self.what = what

    def __enter__(self) -> ModelFile:
        return self

    def __exit__(self, *exc) -> None:
        self.stream.close()

    def span(self, offset: int = 0, length: int | None = None) -> int:
        """The number of bytes from `offset` (`length`, or to the end), refused
        unless they lie within the file."""
        size = self.size
        end = size if length is None else offset + length
        if not 0 <= offset <= end <= size:
            shown_length = "the bytes" if length is None else f"{length} bytes"
            raise FrontendError(
                f"{self.shown}: {shown_length} at offset {offset} lie past the "
                f"end of the file ({size} bytes)"
            )
        return end - offset

    def map(self) -> MappedFile:
        """The file mapped read-only (its regions are read with `span`'s checks)."""
        try:
            return MappedFile(self.stream.fileno(), self.size, self.shown)
        except OSError as e:
            raise FrontendError(
                f"{self.shown}: cannot map {self.what} ({e.strerror})"
            ) from e

    def read(self, offset: int = 0, length: int | None = None) -> bytes:
        end = offset + self.span(offset, length)
        try:
            self.stream.seek(offset)
            data = self.stream.read(end - offset)
        except OSError as e:
            raise FrontendError(
                f"{self.shown}: cannot read {self.what} ({e.strerror})"
            ) from e
        if len(data) != end - offset:
            raise FrontendError(f"{self.shown}: cut short while read")
        return data


def _shown(path: str | os.PathLike, limit: int = 160) -> str:
    """A path as errors show it: control characters escaped, its middle
    elided past `limit` characters."""
    text = os.fspath(path)
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}...{text[-limit // 2 :]}"


def _kind(info: os.stat_result) -> str:
    mode = info.st_mode
    for test, kind in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "an unknown kind of file"
