"""Giving the C heap's freed memory back to the system."""

from __future__ import annotations

import ctypes
import functools
import sys


def release_freed_heap() -> None:
    """Return the free pages of the C heap to the system (glibc's malloc_trim;
    nothing elsewhere).

    onnx's checker and shape inference parse the model into C++ objects
    (~2 kB a node) and free them; glibc keeps those pages, which Python's
    object arenas (allocated apart) cannot reuse, so without this they stay
    in the process's peak under the graph imported next.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    if not sys.platform.startswith("linux"):
        return None
    # the process's own symbols, the C library's among them
    return getattr(ctypes.CDLL(None), "malloc_trim", None)
