"""release_freed_heap gives the C heap's free pages back to the system, which
glibc keeps while a live block lies above them (as the C++ objects of onnx's
checker leave it, under the IR that the import builds next)."""

import ctypes
import sys

import pytest

from graph_opt.heap import release_freed_heap

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="glibc's malloc_trim"
)

BLOCKS, BLOCK_BYTES = 20_000, 2_000
"""40 MB in blocks below glibc's mmap threshold: they come from the heap."""


def resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def test_freed_blocks_under_a_live_one_are_returned():
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    blocks = [libc.malloc(BLOCK_BYTES) for _ in range(BLOCKS)]
    for block in blocks:
        ctypes.memset(block, 1, BLOCK_BYTES)  # make the pages resident
    pinned = libc.malloc(64)  # above them: glibc cannot shrink the heap's top
    for block in blocks:
        libc.free(block)
    kept = resident_mb()
    release_freed_heap()
    released = kept - resident_mb()
    libc.free(pinned)
    assert released > 0.5 * BLOCKS * BLOCK_BYTES / 2**20
