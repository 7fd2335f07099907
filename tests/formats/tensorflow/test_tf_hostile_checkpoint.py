"""Hostile partitioned checkpoints: an index of a few bytes may not make the
freeze allocate more than the checkpoint's files hold, nor read one stored
slice's bytes as another's (make_partitioned_checkpoint_fixtures.py wrote the
honest one)."""

from __future__ import annotations

import pytest
from test_tf_partitioned_checkpoint import TABLE_PART_0, copied

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import load_graph_def
from graph_opt.formats.tensorflow.checkpoint_freeze import freeze_with_checkpoint
from graph_opt.formats.tensorflow.schema import BundleEntryProto
from graph_opt.formats.tensorflow.tensor_bundle import read_table
from graph_opt.formats.tensorflow.tensor_slices import slice_key
from graph_opt.testing.saved_models import write_table

HUGE_ROWS = 1 << 40
"""Rows of a declared `table` of 12 TiB (float32 [2^40, 3])."""


def rewrite_index(prefix, change) -> None:
    """The index with `change(protos)` applied to its entries, keyed by bytes."""
    path = prefix.with_name(prefix.name + ".index")
    entries = read_table(path.read_bytes())
    protos = {key: BundleEntryProto.FromString(value) for key, value in entries if key}
    change(protos)
    header = [(key, value) for key, value in entries if not key]
    changed = [(key, entry.SerializeToString()) for key, entry in protos.items()]
    path.write_bytes(write_table(header + changed))


def restoring_part_0_as(graph, spec: str, shape=None) -> object:
    """The graph whose Saver restores `table/part_0` as part `spec` (its
    variable's shape attribute `shape`, or dropped)."""
    text = graph.read_text()
    at = text.index("save/RestoreV2/shape_and_slices")
    graph.write_text(
        text[:at] + text[at:].replace(TABLE_PART_0, f'string_val: "{spec}"', 1)
    )
    graph_def = load_graph_def(str(graph))
    (part,) = [n for n in graph_def.node if n.name == "table/part_0"]
    if shape is None:
        del part.attr["shape"]
    return graph_def


def table_slices(protos) -> list[BundleEntryProto]:
    """The stored slices of `table`, in key order (first rows first)."""
    return [protos[key] for key in sorted(protos) if key.startswith(b"\x00table\x00")]


def declare_huge_table(protos) -> None:
    protos[b"table"].shape.dim[0].size = HUGE_ROWS


def test_a_huge_declared_part_is_refused_before_allocating(tmp_path):
    """`table` declared [2^40, 3], restored whole from its two 780-byte slices:
    refused as not covered, not a 12 TiB array (MemoryError before)."""
    graph, prefix = copied(tmp_path)
    rewrite_index(prefix, declare_huge_table)
    graph_def = restoring_part_0_as(graph, f"{HUGE_ROWS} 3 -:-")
    with pytest.raises(FrontendError, match=r"do not cover \[0:1099511627776,0:3\]"):
        freeze_with_checkpoint(graph_def, prefix)


def test_a_slice_declaring_more_bytes_than_its_shard_is_refused(tmp_path):
    """A stored slice claiming 2^40 rows (and their bytes, past the shard's
    end) covering a huge part: refused before the part is allocated."""
    graph, prefix = copied(tmp_path)

    def huge_slice(protos):
        declare_huge_table(protos)
        second = protos.pop(slice_key("table", [(65, 65), (0, 3)]))
        protos[slice_key("table", [(65, HUGE_ROWS - 65), (0, 3)])] = second
        protos[b"table"].slices[1].extent[0].length = HUGE_ROWS - 65
        second.shape.dim[0].size = HUGE_ROWS - 65
        second.size = (HUGE_ROWS - 65) * 12

    rewrite_index(prefix, huge_slice)
    graph_def = restoring_part_0_as(graph, f"{HUGE_ROWS} 3 -:-")
    with pytest.raises(FrontendError, match="lie past the end of the file"):
        freeze_with_checkpoint(graph_def, prefix)


def test_slices_aliasing_one_range_of_bytes_are_refused(tmp_path):
    """Two slices of `table` at the same bytes (with that range's CRC): an index
    of a few bytes could otherwise repeat one slice into a large part."""
    graph, prefix = copied(tmp_path)

    def alias(protos):
        first, second = table_slices(protos)
        second.offset, second.crc32c = first.offset, first.crc32c

    rewrite_index(prefix, alias)
    graph_def = load_graph_def(str(graph))
    with pytest.raises(FrontendError, match="'a slice of table' overlap"):
        freeze_with_checkpoint(graph_def, prefix)


def test_thousands_of_tiny_slices_of_a_huge_table_are_refused_unallocated(tmp_path):
    """3000 one-row slices of a table declared [2^40, 3], each 12 bytes at its
    own offset past the shard's end: refused before the 12 TiB part is
    allocated."""
    graph, prefix = copied(tmp_path)

    def tiny_slices(protos):
        declare_huge_table(protos)
        first = table_slices(protos)[0]
        end = max(entry.offset + entry.size for entry in protos.values())
        for key in [k for k in protos if k.startswith(b"\x00table\x00")]:
            del protos[key]
        del protos[b"table"].slices[:]
        for row in range(3000):
            extent = protos[b"table"].slices.add().extent
            extent.add(start=row, length=1)
            extent.add(start=0, length=3)
            tiny = BundleEntryProto()
            tiny.CopyFrom(first)
            tiny.shape.dim[0].size, tiny.size, tiny.offset = 1, 12, end + 12 * row
            protos[slice_key("table", [(row, 1), (0, 3)])] = tiny

    rewrite_index(prefix, tiny_slices)
    graph_def = restoring_part_0_as(graph, f"{HUGE_ROWS} 3 -:-")
    with pytest.raises(FrontendError, match="lie past the end of the file"):
        freeze_with_checkpoint(graph_def, prefix)


def test_a_stored_slice_of_negative_length_is_refused(tmp_path):
    """A slice extent of length -5 (only -1, all of a dimension, is negative in
    TensorFlow's TensorSliceProto): a corrupt checkpoint, not a slice skipped
    (held before: a guard)."""
    graph, prefix = copied(tmp_path)

    def negative(protos):
        second = protos.pop(slice_key("table", [(65, 65), (0, 3)]))
        protos[slice_key("table", [(65, -5), (0, 3)])] = second
        protos[b"table"].slices[1].extent[0].length = -5
        second.shape.dim[0].size = -5

    rewrite_index(prefix, negative)
    with pytest.raises(FrontendError, match=r"slice table\[65:60,0:3\] is missing"):
        freeze_with_checkpoint(load_graph_def(str(graph)), prefix)
