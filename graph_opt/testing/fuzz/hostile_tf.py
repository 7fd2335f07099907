"""Hostile TensorFlow SavedModel directories whose files are symlinks
out of (or within) the directory, FIFOs or devices; checkpoints with a flipped
bit (in the data, an entry's crc32c or the index) or entries that lie past
the shard, claim terabytes or all share one block."""

from __future__ import annotations

import shutil

import numpy as np

from graph_opt.formats.tensorflow.crc32c import crc32c, mask
from graph_opt.testing.fuzz.hostile_inputs import (
    ACCEPT,
    BOUNDED,
    EITHER,
    OPTIMIZE,
    REFUSE,
    Hostile,
    Workspace,
    device,
    fifo,
    link,
)
from graph_opt.testing.saved_models import (
    INDEX,
    OBJECT_GRAPH_KEY,
    SHARD,
    Entry,
    checked_ranges,
    linear_graph,
    shard_name,
    string_tensor,
    variable_key,
    write_index,
    write_linear_saved_model,
    write_meta_graph,
)


def _saved_model(space: Workspace, rng, shard_of=None) -> dict[str, Entry]:
    n = int(rng.integers(4, 17))
    variables = {
        "kernel": rng.standard_normal((n, n)).astype(np.float32),
        "bias": rng.standard_normal(n).astype(np.float32),
    }
    return write_linear_saved_model(space.model, variables, shard_of)


def _command(space: Workspace, name: str, expect: str) -> Hostile:
    return Hostile(f"saved_model:{name}", expect, "graph-opt",
                   (str(space.model), *OPTIMIZE))  # fmt: skip


def _moved_out(space: Workspace, name: str) -> str:
    """Move the model's `name` (under variables/ when not the graph) to the
    same place under outside/, and return a relative link target to it."""
    inner = name if name == "saved_model.pb" else f"variables/{name}"
    (space.outside / "variables").mkdir(exist_ok=True)
    shutil.move(space.model / inner, space.outside / inner)
    return "../" * inner.count("/") + f"../outside/{inner}"


def valid_saved_model(space: Workspace, rng) -> Hostile:
    _saved_model(space, rng)
    return _command(space, "valid_saved_model", ACCEPT)


def shard_symlink_out(space: Workspace, rng) -> Hostile:
    _saved_model(space, rng)
    link(space.model / "variables" / SHARD, _moved_out(space, SHARD))
    return _command(space, "shard_symlink_out", REFUSE)


def index_symlink_out(space: Workspace, rng) -> Hostile:
    _saved_model(space, rng)
    link(space.model / "variables" / INDEX, _moved_out(space, INDEX))
    return _command(space, "index_symlink_out", REFUSE)


def graph_symlink_out(space: Workspace, rng) -> Hostile:
    _saved_model(space, rng)
    link(space.model / "saved_model.pb", _moved_out(space, "saved_model.pb"))
    return _command(space, "graph_symlink_out", REFUSE)


def folder_symlink_out(space: Workspace, rng) -> Hostile:
    _saved_model(space, rng)
    shutil.move(space.model / "variables", space.outside / "variables")
    link(space.model / "variables", "../outside/variables")
    return _command(space, "folder_symlink_out", REFUSE)


def shard_symlink_to_environ(space: Workspace, rng) -> Hostile:
    """The kernel alone in the second shard, a link to /proc/self/environ
    (the environment, decoy first, would become the kernel)."""
    _saved_model(space, rng, {variable_key("kernel"): 1})
    link(space.model / "variables" / shard_name(1, 2), "/proc/self/environ")
    return _command(space, "shard_symlink_to_environ", REFUSE)


def shard_symlink_in(space: Workspace, rng) -> Hostile:
    _saved_model(space, rng)
    (space.model / "blobs").mkdir()
    shutil.move(space.model / "variables" / SHARD, space.model / "blobs" / SHARD)
    link(space.model / "variables" / SHARD, f"../blobs/{SHARD}")
    return _command(space, "shard_symlink_in", EITHER)


def shard_fifo(space: Workspace, rng) -> Hostile:
    _saved_model(space, rng)
    fifo(space.model / "variables" / SHARD)
    return _command(space, "shard_fifo", REFUSE)


def shard_device(space: Workspace, rng) -> Hostile:
    _saved_model(space, rng)
    kind = device(space.model / "variables" / SHARD, rng)
    return _command(space, f"shard_device_{kind}", REFUSE)


def _flip_bit(path, rng, ranges: list[range] | None = None) -> None:
    data = bytearray(path.read_bytes())
    span = ranges[int(rng.integers(len(ranges)))] if ranges else range(len(data))
    data[span[int(rng.integers(len(span)))]] ^= 1 << int(rng.integers(8))
    path.write_bytes(data)


def data_bit_flip(space: Workspace, rng) -> Hostile:
    """A bit of a tensor (or of the object graph) differs from its crc32c."""
    _saved_model(space, rng)
    _flip_bit(space.model / "variables" / SHARD, rng)
    return _command(space, "data_bit_flip", REFUSE)


def index_bit_flip(space: Workspace, rng) -> Hostile:
    """A bit of the index's data or index block (or their crc32c) flipped."""
    _saved_model(space, rng)
    index = space.model / "variables" / INDEX
    _flip_bit(index, rng, checked_ranges(index.read_bytes()))
    return _command(space, "index_bit_flip", REFUSE)


def _rewrite_entry(space: Workspace, entries: dict[str, Entry], **changes) -> None:
    key = variable_key("kernel")
    entries[key] = Entry(**{**entries[key].__dict__, **changes})
    write_index(space.model / "variables" / "variables", entries)


def entry_crc_flip(space: Workspace, rng) -> Hostile:
    entries = _saved_model(space, rng)
    crc = entries[variable_key("kernel")].crc32c ^ (1 << int(rng.integers(32)))
    _rewrite_entry(space, entries, crc32c=crc)
    return _command(space, "entry_crc_flip", REFUSE)


def entry_past_end(space: Workspace, rng) -> Hostile:
    entries = _saved_model(space, rng)
    shard_size = (space.model / "variables" / SHARD).stat().st_size
    _rewrite_entry(space, entries, offset=shard_size - int(rng.integers(0, 8)))
    return _command(space, "entry_past_end", REFUSE)


def huge_entry(space: Workspace, rng) -> Hostile:
    """An entry whose shape and size claim 64 GiB to 1 TiB."""
    entries = _saved_model(space, rng)
    side = 1 << int(rng.integers(17, 19))
    _rewrite_entry(space, entries, shape=(side, side), size=4 * side * side)
    return _command(space, "huge_entry", REFUSE)


def shared_block_bomb(space: Workspace, rng) -> Hostile:
    """Some 2,000 variables whose entries all point at one 512 KiB block
    (valid crc32c each): 1 GiB of constants from a 1 MiB directory."""
    count = int(rng.integers(1600, 2000))
    shape = (256, 512)
    block = rng.standard_normal(shape).astype(np.float32).tobytes()
    views = {f"w{i}": np.broadcast_to(np.float32(0), shape) for i in range(count)}
    graph = linear_graph(views)
    object_graph = write_meta_graph(
        space.model, graph, views, {"x": "x:0"}, {"y": "y:0"}
    )
    checksum = mask(crc32c(block))
    entries = {variable_key(n): Entry(1, shape, 0, len(block), checksum) for n in views}
    string, string_checksum = string_tensor(object_graph)
    entries[OBJECT_GRAPH_KEY] = Entry(7, (), len(block), len(string), string_checksum)
    write_index(space.model / "variables" / "variables", entries)
    (space.model / "variables" / SHARD).write_bytes(block + string)
    return _command(space, "shared_block_bomb", BOUNDED)


TF_HOSTILE = (
    valid_saved_model, shard_symlink_out, index_symlink_out, graph_symlink_out,
    folder_symlink_out, shard_symlink_to_environ, shard_symlink_in, shard_fifo,
    shard_device, data_bit_flip, index_bit_flip, entry_crc_flip, entry_past_end,
    huge_entry, shared_block_bomb,
)  # fmt: skip
