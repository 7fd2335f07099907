"""Computed weights written past the page cache (graph_opt/formats/direct_write.py):
the file holds the bytes a buffered write gives, the whole blocks went through
the O_DIRECT descriptor, and a refusal falls back to the page cache."""

import errno
import os
from pathlib import Path

import numpy as np
import pytest

from graph_opt import weights
from graph_opt.formats import direct_write
from graph_opt.formats.direct_write import BLOCK, DirectWriter
from graph_opt.weights import HexWeight, ScaledWeight, copy_weight

ROWS, COLUMNS = 1000, 1001
"""A float32 weight whose rows (4004 bytes) do not fill whole blocks."""


def mapped(tmp_path: Path, array: np.ndarray) -> weights.WeightBytes:
    array.tofile(tmp_path / "w.bin")
    fd = os.open(tmp_path / "w.bin", os.O_RDONLY)
    try:
        return weights.MappedFile(fd, array.nbytes, "w.bin").region(0, array.nbytes)
    finally:
        os.close(fd)


def scaled_by_column(tmp_path):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((ROWS, COLUMNS), np.float32)
    factor = rng.uniform(0.5, 2, COLUMNS)  # (float64: the slower product)
    return ScaledWeight(mapped(tmp_path, w), w.shape, np.float32, factor)


def scaled_by_row(tmp_path):
    """As a conv's OIHW filter is scaled: along the first axis."""
    rng = np.random.default_rng(1)
    w = rng.standard_normal((ROWS, 7, 11, 13), np.float32)
    factor = rng.uniform(0.5, 2, ROWS).astype(np.float32).reshape(-1, 1, 1, 1)
    return ScaledWeight(mapped(tmp_path, w), w.shape, np.float32, factor)


def spilled(tmp_path):
    return weights.spilled(np.arange(ROWS * COLUMNS, dtype=np.float32))


def hex_blob(tmp_path):
    data = np.random.default_rng(2).integers(0, 256, 4 * ROWS * COLUMNS, np.uint8)
    return HexWeight(data.tobytes().hex().encode(), 0, 2 * data.nbytes)


KINDS = [scaled_by_column, scaled_by_row, spilled, hex_blob]


@pytest.fixture
def direct_writes(monkeypatch):
    """(fd, offset, nbytes) of every write the writer makes; pieces of 64 KiB
    (not whole rows of blocks), so each weight takes many."""
    monkeypatch.setattr(ScaledWeight, "PIECE_BYTES", 64 << 10)
    monkeypatch.setattr(direct_write, "STAGING_BYTES", 64 << 10)
    calls = []
    write_at = direct_write.write_at

    def recorded(fd, data, offset):
        calls.append((fd, offset, memoryview(data).nbytes))
        write_at(fd, data, offset)

    monkeypatch.setattr(direct_write, "write_at", recorded)
    return calls


def written(path: Path, data, offset: int, writer_fds: list | None = None) -> bytes:
    """The file `DirectWriter` makes of `data` at `offset`."""
    with open(path, "wb") as out, DirectWriter(out.fileno()) as writer:
        if writer_fds is not None:
            writer_fds.append(writer.direct)
        writer.write(data, offset)
    return path.read_bytes()


def buffered(path: Path, data, offset: int) -> bytes:
    with open(path, "wb") as out:
        copy_weight(data, out.fileno(), offset)
    return path.read_bytes()


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_a_computed_weight_goes_direct_with_the_bytes_of_a_buffered_write(
    tmp_path, kind, direct_writes
):
    data = kind(tmp_path)
    fds = []
    got = written(tmp_path / "direct.bin", data, 3 * BLOCK, fds)
    assert got == buffered(tmp_path / "buffered.bin", data, 3 * BLOCK)
    (direct,) = fds
    assert direct is not None
    through_direct = [(o, n) for fd, o, n in direct_writes if fd == direct]
    assert len(through_direct) > 1
    assert all(o % BLOCK == 0 and n % BLOCK == 0 for o, n in through_direct)
    assert sum(n for _, n in through_direct) == len(data) - len(data) % BLOCK


def test_a_copied_weight_and_an_unaligned_offset_go_through_the_page_cache(
    tmp_path, direct_writes
):
    original = mapped(tmp_path, np.arange(ROWS * COLUMNS, dtype=np.float32))
    scaled = scaled_by_column(tmp_path)
    for data, offset in ((original, 0), (scaled, BLOCK + 4)):
        fds = []
        got = written(tmp_path / "out.bin", data, offset, fds)
        assert got == buffered(tmp_path / "buffered.bin", data, offset)
        assert not [call for call in direct_writes if call[0] == fds[0]]


def test_a_write_refused_with_einval_falls_back_to_the_page_cache(
    tmp_path, direct_writes, monkeypatch
):
    """A file system may accept the O_DIRECT open and refuse the write."""
    refused = []
    recorded = direct_write.write_at

    def refusing(fd, data, offset):
        if fd == getattr(refusing, "direct", None):
            refused.append(offset)
            raise OSError(errno.EINVAL, "Invalid argument")
        recorded(fd, data, offset)

    monkeypatch.setattr(direct_write, "write_at", refusing)
    data = scaled_by_column(tmp_path)
    second = len(data) - len(data) % BLOCK + BLOCK
    path, expected = tmp_path / "out.bin", tmp_path / "buffered.bin"
    with open(path, "wb") as out, DirectWriter(out.fileno()) as writer:
        refusing.direct = writer.direct
        writer.write(data, 0)
        assert writer.direct is None
        writer.write(data, second)
    with open(expected, "wb") as out:
        copy_weight(data, out.fileno(), 0)
        copy_weight(data, out.fileno(), second)
    assert refused == [0]
    assert path.read_bytes() == expected.read_bytes()


def test_a_file_system_refusing_o_direct_gets_the_same_bytes(tmp_path, monkeypatch):
    opened = os.open

    def refusing(path, flags, *args):
        if flags & os.O_DIRECT:
            raise OSError(errno.EINVAL, "Invalid argument")
        return opened(path, flags, *args)

    monkeypatch.setattr(direct_write.os, "open", refusing)
    data = scaled_by_row(tmp_path)
    fds = []
    got = written(tmp_path / "out.bin", data, 0, fds)
    assert fds == [None]
    assert got == buffered(tmp_path / "buffered.bin", data, 0)


def test_a_failed_direct_write_is_raised_not_hidden(tmp_path, monkeypatch):
    """Only EINVAL (O_DIRECT refused) falls back; a full disk is an error."""
    recorded = direct_write.write_at

    def full(fd, data, offset):
        if fd == getattr(full, "direct", None):
            raise OSError(errno.ENOSPC, "No space left on device")
        recorded(fd, data, offset)

    monkeypatch.setattr(direct_write, "write_at", full)
    with open(tmp_path / "out.bin", "wb") as out, DirectWriter(out.fileno()) as writer:
        full.direct = writer.direct
        with pytest.raises(OSError, match="No space"):
            writer.write(scaled_by_column(tmp_path), 0)
