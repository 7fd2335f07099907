"""SavedModel directories written without TensorFlow, for tests and the fuzzer.

The reverse of `frontend.tensorflow.tensor_bundle` and `saved_model`: a
LevelDB-format table (one data block, restart at every key, block trailers
with masked crc32c) holding a BundleHeaderProto and one BundleEntryProto per
tensor, a single data shard, and a `saved_model.pb` whose graph reads each
variable through a VarHandleOp tied to the checkpoint by object-graph node id.
TensorFlow reads what this writes (checked with `tf.train.load_checkpoint`).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graph_opt.formats.protobuf_wire import varint
from graph_opt.formats.tensorflow.crc32c import crc32c, mask
from graph_opt.formats.tensorflow.export.exporter import DT_OF_NUMPY
from graph_opt.formats.tensorflow.schema import (
    DATA_TYPES,
    BundleEntryProto,
    BundleHeaderProto,
    GraphDef,
    SavedModel,
    TrackableObjectGraph,
)
from graph_opt.formats.tensorflow.tensor_bundle import (
    BLOCK_TRAILER_SIZE,
    FOOTER_SIZE,
    TABLE_MAGIC,
)

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
SHARD = "variables.data-00000-of-00001"
"""The data shard of a one-shard checkpoint."""
INDEX = "variables.index"


def _block(entries: list[tuple[bytes, bytes]]) -> bytes:
    body, restarts = bytearray(), []
    for key, value in entries:
        restarts.append(len(body))
        body += varint(0) + varint(len(key)) + varint(len(value)) + key + value
    restarts = restarts or [0]
    return bytes(body) + struct.pack(f"<{len(restarts) + 1}I", *restarts, len(restarts))


def _with_trailer(block: bytes) -> bytes:
    return block + b"\0" + struct.pack("<I", mask(crc32c(block + b"\0")))


def write_table(entries: list[tuple[bytes, bytes]], index_repeats: int = 1) -> bytes:
    """A LevelDB-format table of the (key, value) pairs, in key order; its index
    points at the one data block `index_repeats` times."""
    last_key = max((k for k, _ in entries), default=b"")
    return table_of_block(_block(sorted(entries)), last_key, index_repeats)


def table_of_block(data: bytes, last_key: bytes, index_repeats: int = 1) -> bytes:
    """A table whose one data block is `data`, entries encoded as they may be."""
    metaindex = _block([])
    handle = varint(0) + varint(len(data))
    index = _block([(last_key, handle)] * index_repeats)
    table = _with_trailer(data)
    metaindex_handle = varint(len(table)) + varint(len(metaindex))
    table += _with_trailer(metaindex)
    index_handle = varint(len(table)) + varint(len(index))
    table += _with_trailer(index)
    handles = metaindex_handle + index_handle
    footer = handles + b"\0" * (FOOTER_SIZE - 8 - len(handles))
    return table + footer + struct.pack("<Q", TABLE_MAGIC)


def _readvarint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while data[position] & 0x80:
        value |= (data[position] & 0x7F) << shift
        position, shift = position + 1, shift + 7
    return value | data[position] << shift, position + 1


def checked_ranges(table: bytes) -> list[range]:
    """The bytes of a table that `write_table` wrote whose damage TensorFlow's
    reader detects: the data block (first in the file) and the index block,
    with their trailers; it never reads the metaindex block, nor the footer's
    padding."""
    metaindex_offset, position = _readvarint(table, len(table) - FOOTER_SIZE)
    _, position = _readvarint(table, position)
    index_offset, position = _readvarint(table, position)
    index_size, _ = _readvarint(table, position)
    index_end = index_offset + index_size + BLOCK_TRAILER_SIZE
    return [range(0, metaindex_offset), range(index_offset, index_end)]


@dataclass(frozen=True)
class Entry:
    """Where a tensor lies in the shards, as the index says."""

    dtype: int
    shape: tuple[int, ...]
    offset: int
    size: int
    crc32c: int
    shard: int = 0


def bundle_entry(entry: Entry) -> bytes:
    proto = BundleEntryProto(
        dtype=entry.dtype, shard_id=entry.shard, offset=entry.offset,
        size=entry.size, crc32c=entry.crc32c,
    )  # fmt: skip
    for size in entry.shape:
        proto.shape.dim.add(size=size)
    return proto.SerializeToString()


def string_tensor(value: bytes) -> tuple[bytes, int]:
    """A scalar string's bytes in a shard and their entry checksum, as TensorFlow
    writes them: [varint64 length][masked crc32c of the length][bytes]; the entry's
    crc32c covers the length as a uint32, the length checksum and the bytes."""
    crc = crc32c(struct.pack("<I", len(value)))
    length_checksum = struct.pack("<I", mask(crc))
    crc = crc32c(value, crc32c(length_checksum, crc))
    return varint(len(value)) + length_checksum + value, mask(crc)


def shard_name(shard: int, count: int) -> str:
    return f"variables.data-{shard:05d}-of-{count:05d}"


def write_bundle(
    prefix: Path, tensors: Mapping[str, np.ndarray | bytes],
    shard_of: Mapping[str, int] | None = None,
) -> dict:  # fmt: skip
    """`prefix.index` and the data shards holding `tensors` (bytes: a scalar
    string), each in shard 0 unless `shard_of` says; returns the entries by
    key, to damage them in a test."""
    shard_of = shard_of or {}
    shards = [bytearray() for _ in range(max(shard_of.values(), default=0) + 1)]
    entries = {}
    for key, value in tensors.items():
        if isinstance(value, bytes):
            data, checksum = string_tensor(value)
            dtype, shape = DATA_TYPES["DT_STRING"], ()
        else:
            data = np.ascontiguousarray(value).astype(value.dtype.newbyteorder("<"))
            data = data.tobytes()
            checksum = mask(crc32c(data))
            dtype, shape = DT_OF_NUMPY[value.dtype], value.shape
        shard = shards[shard_of.get(key, 0)]
        entries[key] = Entry(dtype, tuple(shape), len(shard), len(data), checksum,
                             shard_of.get(key, 0))  # fmt: skip
        shard += data
    write_index(prefix, entries)
    for i, data in enumerate(shards):
        (prefix.parent / shard_name(i, len(shards))).write_bytes(data)
    return entries


def write_index(prefix: Path, entries: Mapping[str, Entry]) -> None:
    shards = max((e.shard for e in entries.values()), default=0) + 1
    header = BundleHeaderProto(num_shards=shards)
    header.version.producer = 1
    rows = [(b"", header.SerializeToString())]
    rows += [(key.encode(), bundle_entry(e)) for key, e in entries.items()]
    prefix.with_name(prefix.name + ".index").write_bytes(write_table(rows))


def variable_key(name: str) -> str:
    return f"{name}/.ATTRIBUTES/VARIABLE_VALUE"


def write_saved_model(
    directory: Path, graph: GraphDef, variables: Mapping[str, np.ndarray],
    inputs: Mapping[str, str], outputs: Mapping[str, str],
    shard_of: Mapping[str, int] | None = None,
) -> dict:  # fmt: skip
    """A SavedModel of `graph` whose VarHandleOps (by shared name) hold
    `variables`; `inputs` and `outputs` map signature keys to tensor names;
    `shard_of`: see `write_bundle`. Returns the checkpoint entries by key."""
    object_graph = write_meta_graph(directory, graph, variables, inputs, outputs)
    tensors: dict[str, np.ndarray | bytes] = {
        variable_key(name): value for name, value in variables.items()
    }
    tensors[OBJECT_GRAPH_KEY] = object_graph
    return write_bundle(directory / "variables" / "variables", tensors, shard_of)


def write_meta_graph(
    directory: Path, graph: GraphDef, variables: Mapping[str, np.ndarray],
    inputs: Mapping[str, str], outputs: Mapping[str, str],
) -> bytes:  # fmt: skip
    """`saved_model.pb` (only the variables' dtype and shape are read: a
    broadcast view will do) and the checkpoint's object graph to store."""
    (directory / "variables").mkdir(parents=True, exist_ok=True)
    model = SavedModel(saved_model_schema_version=1)
    meta = model.meta_graphs.add()
    meta.graph_def.CopyFrom(graph)
    signature = meta.signature_def["serving_default"]
    signature.method_name = "tensorflow/serving/predict"
    for key, tensor in inputs.items():
        signature.inputs[key].name = tensor
        signature.inputs[key].dtype = DATA_TYPES["DT_FLOAT"]
    for key, tensor in outputs.items():
        signature.outputs[key].name = tensor
        signature.outputs[key].dtype = DATA_TYPES["DT_FLOAT"]
    objects = TrackableObjectGraph()
    objects.nodes.add()  # the root
    meta.object_graph_def.nodes.add()
    for name, value in variables.items():
        saved = meta.object_graph_def.nodes.add().variable
        saved.name, saved.dtype = name, DT_OF_NUMPY[value.dtype]
        for size in value.shape:
            saved.shape.dim.add(size=size)
        attribute = objects.nodes.add().attributes.add()
        attribute.name, attribute.full_name = "VARIABLE_VALUE", name
        attribute.checkpoint_key = variable_key(name)
    (directory / "saved_model.pb").write_bytes(model.SerializeToString())
    return objects.SerializeToString()


def linear_graph(variables: Mapping[str, np.ndarray]) -> GraphDef:
    """y = x @ w for the first variable w, x a [1, rows] placeholder; the other
    variables' handles are read by nothing."""
    from graph_opt.testing.graph_defs import Type, set_attr

    graph = GraphDef()
    graph.versions.producer = 1882
    names = list(variables)
    rows = variables[names[0]].shape[0]
    f32 = Type(DATA_TYPES["DT_FLOAT"])

    def node(name: str, op: str, inputs=(), **attrs) -> None:
        added = graph.node.add(name=name, op=op)
        added.input.extend(inputs)
        for key, value in attrs.items():
            set_attr(added.attr[key], value)

    node("x", "Placeholder", dtype=f32, shape=("shape", [1, rows]))
    for name, value in variables.items():
        node(name, "VarHandleOp", dtype=Type(DT_OF_NUMPY[value.dtype]),
             shape=("shape", list(value.shape)), shared_name=name)  # fmt: skip
    node("read", "ReadVariableOp", [names[0]], dtype=f32)
    node("y", "MatMul", ["x", "read"], T=f32)
    return graph


def write_linear_saved_model(
    directory: Path, variables: Mapping[str, np.ndarray],
    shard_of: Mapping[str, int] | None = None,
) -> dict:  # fmt: skip
    """`linear_graph` as a SavedModel (signature: x -> y); the checkpoint entries."""
    graph = linear_graph(variables)
    return write_saved_model(
        directory, graph, variables, {"x": "x:0"}, {"y": "y:0"}, shard_of
    )
