"""Which files a graph-opt command opens for reading, from inside its process.

Run by path, `python audit.py LOG TOOL ARGS...` starts watching opens before
graph_opt is imported, then runs TOOL (`graph-opt`, `graph-opt-run`):
- `os.open` and `io.open` (so `open`, `Path.open`, `os.fdopen`) are wrapped:
  each successful open is logged as the file its descriptor is open on (from
  /proc/self/fd), whatever relative path, dir_fd or symlink led there; onnx's
  C++ opens of external data show up through the `os.fdopen` that reads them;
- an audit hook (PEP 578) logs the "open" events of any other way (imports,
  `io.FileIO`), before the call, with the path as given and the flags.
Each open becomes a line of LOG, written unbuffered so a killed run keeps it:
`fd|path|os <TAB> flags <TAB> path`. The first line is `sys.path <TAB> entries`.

`reads_outside` judges a log: a read (not write-only) of a file that, after
symlinks, lies outside the allowed directories (the model's, the output's,
Python's own files); of an `open()` through an opener the hook sees the io
event and the os one, and the os one (its flags are those used) counts. Only
this file's top level runs in the child: it imports nothing but the standard
library before the watch is in place.
"""

from __future__ import annotations

import builtins
import functools
import io
import os
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

ALWAYS_ALLOWED = ("/dev/null",)
"""Opened by Python's own machinery (subprocess), reads nothing."""


def install(log_path: str) -> None:
    """Log every open of this process to `log_path` from now on."""
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    wrapped = threading.local()

    def write(kind: str, flags: int, path: str) -> None:
        line = f"{kind}\t{flags}\t{path}\n"
        os.write(log, line.encode("utf-8", "surrogateescape"))

    def opened(fd: int, flags: int) -> None:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return
        if target.startswith("/"):  # not a pipe or socket
            write("fd", flags, target)

    def hook(event: str, args: tuple) -> None:
        if event != "open" or getattr(wrapped, "depth", 0):
            return
        path, mode, flags = args
        if isinstance(path, int):
            opened(path, flags)
        elif path is not None:
            kind = "os" if mode is None else "path"
            write(kind, flags or 0, os.path.abspath(os.fsdecode(path)))

    def watch(function, descriptor, flags):
        @functools.wraps(function)
        def opening(*args, **kwargs):
            wrapped.depth = getattr(wrapped, "depth", 0) + 1
            try:
                result = function(*args, **kwargs)
            finally:
                wrapped.depth -= 1
            opened(descriptor(result), flags(*args, **kwargs))
            return result

        return opening

    def os_flags(path, flags, *args, **kwargs) -> int:
        return flags

    def io_flags(file, mode="r", *args, **kwargs) -> int:
        return os.O_RDONLY if "r" in mode or "+" in mode else os.O_WRONLY

    write("sys.path", 0, "\t".join(p for p in sys.path if p))
    sys.addaudithook(hook)
    os.open = watch(os.open, lambda fd: fd, os_flags)
    io.open = watch(io.open, lambda file: file.fileno(), io_flags)
    builtins.open = io.open


def _main() -> int:
    del sys.path[0]  # this file's folder: its modules are not top-level ones
    log_path, tool = sys.argv[1], sys.argv[2]
    install(log_path)
    sys.argv[1:] = sys.argv[3:]
    sys.argv[0] = tool
    from graph_opt.tools import launch

    return getattr(launch, tool.replace("-", "_"))()


def opened_for_reading(lines: Iterable[str]) -> tuple[list[str], list[str]]:
    """The sys.path of the child, and the resolved paths it opened to read."""
    events, python_path = [], []
    for line in lines:
        kind, flags, path = line.rstrip("\n").split("\t", 2)
        if kind == "sys.path":
            python_path = path.split("\t") if path else []
        else:
            events.append((kind, int(flags), path))
    reads = []
    for i, (kind, flags, path) in enumerate(events):
        through_opener = (
            kind == "path"
            and i + 1 < len(events)
            and events[i + 1][0] == "os"
            and events[i + 1][2] == path
        )
        if through_opener or flags & os.O_ACCMODE == os.O_WRONLY:
            continue
        reads.append(_resolved(path, kind == "fd" or bool(flags & os.O_NOFOLLOW)))
    return python_path, reads


def _resolved(path: str, final_link_kept: bool) -> str:
    """The file a path names after symlinks (the last one not followed with
    O_NOFOLLOW, or when the path is already that of an open descriptor)."""
    if final_link_kept:
        head, tail = os.path.split(path)
        return os.path.join(os.path.realpath(head), tail)
    return os.path.realpath(path)


def reads_outside(log: Path, allowed: Iterable[Path], work: Path) -> list[str]:
    """Files the logged run read outside `allowed` and Python's own folders
    (its prefixes and sys.path, except any that holds `work`)."""
    if not log.exists():
        return []
    python_path, reads = opened_for_reading(
        log.read_text("utf-8", "replace").splitlines()
    )
    work = Path(os.path.realpath(work))
    python = [sys.prefix, sys.base_prefix, sys.exec_prefix, *python_path]
    roots = [Path(os.path.realpath(p)) for p in python if os.path.isabs(p)]
    roots = [r for r in roots if r != Path("/") and not work.is_relative_to(r)]
    roots += [Path(os.path.realpath(p)) for p in allowed]
    outside = []
    for path in reads:
        if path in ALWAYS_ALLOWED or any(Path(path).is_relative_to(r) for r in roots):
            continue
        if path not in outside:
            outside.append(path)
    return outside


if __name__ == "__main__":
    sys.exit(_main())
