"""Writing an ONNX model without a second copy of its weights.

`export_module(..., deferred_weights=d)` leaves the raw bytes of large
initializers out of the ModelProto it builds and records them in `d` (they
are the module's own attribute bytes, not copies); `write_model` then writes
the protobuf wire format of the whole model to a stream, each deferred tensor
as its weight-free message followed by its `raw_data` field. The result
parses to the same message as the full model's `SerializeToString()`; only
field order differs (the graph comes last in the model, a tensor's raw_data
last in the tensor), which protobuf parsers accept as equal. Building and
serializing the full model instead holds the weights three times at once
(module, message, serialized bytes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO

import onnx

from graph_opt.formats.protobuf_wire import length_delimited_key, varint
from graph_opt.weights import HexWeight, ScaledWeight, WeightBytes

DEFERRED_MIN_BYTES = 1 << 12
"""Initializers of at least this many raw bytes are deferred to `write_model`."""

_GRAPH_FIELD = 7  # ModelProto.graph
_INITIALIZER_FIELD = 5  # GraphProto.initializer
_RAW_DATA_FIELD = 9  # TensorProto.raw_data


def write_model(
    model: onnx.ModelProto, deferred: dict[str, bytes], stream: IO[bytes]
) -> None:
    """Write `model`, the deferred raw bytes of its initializers spliced in.
    Empties `model.graph` of its initializers (then of the graph itself)."""
    graph = model.graph
    pieces = _initializer_pieces(graph.initializer, deferred)
    graph.ClearField("initializer")
    graph_bytes = graph.SerializeToString()
    model.ClearField("graph")
    graph_size = len(graph_bytes) + sum(len(data) + len(raw) for data, raw in pieces)
    stream.write(model.SerializeToString())
    stream.write(length_delimited_key(_GRAPH_FIELD) + varint(graph_size))
    stream.write(graph_bytes)
    for data, raw in pieces:
        stream.write(data)
        if raw:
            _write_raw(raw, stream)


def _initializer_pieces(
    tensors: Sequence[onnx.TensorProto], deferred: dict[str, bytes]
) -> list[tuple[bytes, bytes]]:
    """The initializer fields of the graph, in order, as (wire bytes, raw
    bytes written after them): each tensor with deferred bytes as its key,
    length and weight-free message; each run of the others serialized whole,
    in one call (a graph holding only them: the same bytes as one by one)."""
    if not deferred:
        return [(_serialized_run(tensors), b"")] if tensors else []
    pieces: list[tuple[bytes, bytes]] = []
    start = 0
    for index, tensor in enumerate(tensors):
        raw = deferred.get(tensor.name, b"")
        if not raw:
            continue
        if start < index:
            pieces.append((_serialized_run(tensors[start:index]), b""))
        start = index + 1
        header = tensor.SerializeToString()
        header += length_delimited_key(_RAW_DATA_FIELD) + varint(len(raw))
        entry = length_delimited_key(_INITIALIZER_FIELD) + varint(
            len(header) + len(raw)
        )
        pieces.append((entry + header, raw))
    if start < len(tensors):
        pieces.append((_serialized_run(tensors[start:]), b""))
    return pieces


def _serialized_run(tensors: Sequence[onnx.TensorProto]) -> bytes:
    run = onnx.GraphProto()
    run.initializer.extend(tensors)
    return run.SerializeToString()


def _write_raw(raw, stream: IO[bytes]) -> None:
    """A weight's bytes; a mapped one file to file where the stream is a
    seekable file (not read into the process)."""
    if type(raw) is WeightBytes and _is_file(stream):
        stream.flush()
        position = stream.tell()
        raw.copy_to(stream.fileno(), position)
        stream.seek(position + len(raw))
    elif type(raw) in (ScaledWeight, HexWeight):
        for piece in raw.pieces():
            stream.write(piece)
    else:
        stream.write(raw)


def _is_file(stream: IO[bytes]) -> bool:
    try:
        return stream.seekable() and stream.fileno() >= 0
    except (OSError, ValueError, AttributeError):  # (io.BytesIO has no fileno)
        return False
