"""A SavedModel's checkpoint is checked as TensorFlow checks it (a CRC-32C
mismatch is data loss), its tensors and blocks may not overlap, and its files
are read from inside the directory only, never waiting on a FIFO."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_opt import api
from graph_opt.formats.tensorflow.crc32c import crc32c, mask, unmask
from graph_opt.formats.tensorflow.schema import BundleEntryProto
from graph_opt.formats.tensorflow.tensor_bundle import (
    TableError,
    TensorBundle,
    read_table,
)
from graph_opt.testing.saved_models import table_of_block, varint, write_table

ROOT = Path(__file__).resolve().parents[3]
MODEL = Path(__file__).parent / "corpus" / "dilated_conv_bn_saved_model"
KERNEL = "model/_layers/1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"
BIAS = "model/_layers/1/bias/.ATTRIBUTES/VARIABLE_VALUE"
SHARD = "variables/variables.data-00000-of-00001"
INDEX = "variables/variables.index"


def bitwise_crc32c(data: bytes) -> int:
    """The CRC-32C by its definition, one bit at a time."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


@pytest.mark.parametrize(
    "data, expected",
    [(b"123456789", 0xE3069283),
     (bytes(32), 0x8A9136AA),  # RFC 3720, B.4
     (b"\xff" * 32, 0x62A8AB43),
     (bytes(range(32)), 0x46DD794E),
     (bytes(range(31, -1, -1)), 0x113FDB5C)],
)  # fmt: skip
def test_crc32c_known_values(data, expected):
    assert crc32c(data) == expected


@settings(max_examples=60, deadline=None)
@given(
    st.binary(min_size=0, max_size=40000),
    st.integers(min_value=0, max_value=40000),
)
def test_crc32c_of_long_data_and_in_pieces_is_the_definition(data, cut):
    """Long data goes through the rows-at-once path; pieces extend a CRC."""
    assert crc32c(data) == bitwise_crc32c(data)
    assert crc32c(data[cut:], crc32c(data[:cut])) == crc32c(data)


def test_unmask_inverts_tensorflows_mask():
    for crc in (0, 1, 0xE3069283, 0xFFFFFFFF):
        assert unmask(mask(crc)) == crc


def test_every_checksum_of_a_tensorflow_checkpoint_matches():
    bundle = TensorBundle(MODEL / "variables" / "variables")
    for key, entry in bundle.entries.items():
        if entry.dtype == 7:
            bundle.string(key)
        else:
            bundle.tensor(key)


def graph_opt(directory: Path) -> subprocess.CompletedProcess:
    """`graph-opt DIR` on this checkout; a read that blocks ends in TimeoutExpired."""
    return subprocess.run(
        [sys.executable, "-m", "graph_opt", str(directory)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )


def assert_one_line(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 1, result
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


@pytest.fixture
def model(tmp_path: Path) -> Path:
    copy = tmp_path / "model"
    shutil.copytree(MODEL, copy)
    return copy


def flip_bit(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x10
    path.write_bytes(bytes(data))


def rewrite_index(model: Path, change, index_repeats: int = 1) -> None:
    """The model's index with `change(entries)` applied to its BundleEntryProtos."""
    path = model / INDEX
    entries = read_table(path.read_bytes())
    protos = {
        key.decode(): BundleEntryProto.FromString(value)
        for key, value in entries
        if key
    }
    change(protos)
    changed = [
        (key, protos[key.decode()].SerializeToString() if key else value)
        for key, value in entries
    ]
    path.write_bytes(write_table(changed, index_repeats))


def test_a_flipped_bit_in_a_tensor_is_data_loss(model: Path):
    """TensorFlow raises DataLoss; the damaged kernel must not be imported."""
    flip_bit(model / SHARD, 100)
    assert_one_line(graph_opt(model), KERNEL, "checksum", "damaged")


def test_a_flipped_bit_in_the_index_is_data_loss(model: Path):
    table = (model / INDEX).read_bytes()
    offset = table.index(read_table(table)[1][0])  # a key, in the first data block
    flip_bit(model / INDEX, offset + 3)
    assert_one_line(graph_opt(model), "variables.index", "checksum of the block")


def test_a_rewritten_index_with_valid_checksums_is_read(model: Path):
    """The tests' table writer is faithful: what it writes imports as before."""
    rewrite_index(model, lambda protos: None)
    result = graph_opt(model)
    assert result.returncode == 0, result.stderr
    assert result.stdout == graph_opt(MODEL).stdout


def test_tensors_sharing_bytes_are_refused(model: Path):
    def alias(protos):
        protos[BIAS].offset = protos[KERNEL].offset + 64
        protos[BIAS].crc32c = protos[KERNEL].crc32c

    rewrite_index(model, alias)
    assert_one_line(graph_opt(model), "overlap", KERNEL, BIAS)


def test_an_index_repeating_one_block_is_refused(model: Path):
    """A few bytes of index naming one block over and over grew without bound."""
    rewrite_index(model, lambda protos: None, index_repeats=500)
    assert_one_line(graph_opt(model), "variables.index", "overlaps another")


def test_a_tensor_in_a_shard_that_does_not_exist_is_refused(model: Path):
    def move(protos):
        protos[BIAS].shard_id = 3

    rewrite_index(model, move)
    assert_one_line(graph_opt(model), BIAS, "outside the checkpoint's shards")


def test_keys_decoding_past_a_bound_are_refused():
    """Prefix compression lets each key repeat the last one and add to it:
    a small index whose keys decode to quadratic memory."""
    entry = varint(0) + varint(100) + varint(0) + b"k" * 100
    body = b"".join(
        varint(100 * i) + varint(100) + varint(0) + b"k" * 100 for i in range(2000)
    )
    restarts = struct.pack("<II", 0, 1)
    with pytest.raises(TableError, match="far more than the file holds"):
        read_table(table_of_block(body + restarts, b"\xff"))
    assert len(read_table(table_of_block(entry + restarts, b"\xff"))) == 1


def test_a_shard_that_is_a_fifo_is_refused_without_blocking(model: Path):
    (model / SHARD).unlink()
    os.mkfifo(model / SHARD)
    assert_one_line(graph_opt(model), SHARD.split("/")[1], "a FIFO")


def test_a_saved_model_pb_that_is_a_fifo_is_refused(model: Path):
    (model / "saved_model.pb").unlink()
    os.mkfifo(model / "saved_model.pb")
    assert_one_line(graph_opt(model), "saved_model.pb", "a FIFO")


@pytest.mark.parametrize("target", ["/proc/self/environ", "../../outside.data"])
def test_a_shard_linked_outside_the_directory_is_refused(model: Path, target):
    """Linked to /proc/self/environ, the environment became a conv kernel."""
    shutil.copy(model / SHARD, model.parent / "outside.data")
    (model / SHARD).unlink()
    os.symlink(target, model / SHARD)
    assert_one_line(graph_opt(model), "outside the model's directory")


def test_a_shard_linked_inside_the_directory_is_read(model: Path):
    (model / "shards").mkdir()
    (model / SHARD).rename(model / "shards" / "data")
    os.symlink("../shards/data", model / SHARD)
    expected = api.to_mlir(api.load(MODEL))
    assert api.to_mlir(api.load(model)) == expected


def test_a_checkpoint_linked_outside_through_its_directory_is_refused(
    model: Path, tmp_path: Path
):
    shutil.move(model / "variables", tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", model / "variables")
    assert_one_line(graph_opt(model), "outside the model's directory")
