"""A GraphDef written as a stream, binary or text, its mapped weights copied
from their mapping into the file, never into the protobuf.

The export holds each mapped weight apart (`hold_weight`): its Const gets its
dtype and shape, no content, and a mark (`HELD_ATTR`, the weight's index).
`write_graph_def` then writes the graph's fields one node at a time; a marked
node is written without its `value` attribute, which follows it, framed by
hand: the map entry ("value", AttrValue{tensor: TensorProto}) whose
TensorProto is the Const's, serialized, then field 4 (`tensor_content`), its
length and the weight's bytes in pieces. Protobuf readers take fields in any
order, so this parses as the GraphDef `export_graph_def` would have built.
`write_graph_def_text` writes the text of each node, a held weight's escaped
bytes in pieces where its `tensor_content` goes.
"""

from __future__ import annotations

import math
from typing import BinaryIO, TextIO

from google.protobuf import text_format
from google.protobuf.text_encoding import CEscape
from xdsl.dialects.builtin import ModuleOp

from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.protobuf_wire import length_delimited_head
from graph_opt.formats.tensorflow.export.exporter import (
    DT_OF_NUMPY,
    export_graph_def,
)
from graph_opt.formats.tensorflow.schema import GraphDef, NodeDef
from graph_opt.weights import ScaledWeight, WeightBytes

HELD_ATTR = "_graph_opt_held"
PIECE_BYTES = 8 << 20
TEXT_PIECE_BYTES = 1 << 20
"""Bytes escaped at a time in a text GraphDef (up to four characters each)."""
HELD_MARKER = b"\0graph-opt held weight\0"
"""Where a held weight's text goes in its Const's text (no name holds a NUL)."""


def hold_weight(e, op, data: WeightBytes | ScaledWeight) -> str | None:
    """A Const of `op`'s mapped value, held in `e.held` (see the module's doc);
    None for a value its bytes do not spell out whole (a splat)."""
    value_type = op.value.type
    element = numpy_dtype(value_type.get_element_type())
    if len(data) != element.itemsize * math.prod(value_type.get_shape()):
        return None
    dtype = DT_OF_NUMPY[element]
    node = e.add("Const", [], e.node_name(op))
    node.attr["dtype"].type = dtype
    tensor = node.attr["value"].tensor
    tensor.dtype = dtype
    for size in value_type.get_shape():
        tensor.tensor_shape.dim.add(size=size)
    node.attr[HELD_ATTR].i = len(e.held)
    e.held.append(data)
    return node.name


def _framed_node(node: NodeDef, size: int) -> tuple[bytes, bytes]:
    """(what precedes a held weight's `size` bytes, what follows: nothing) for
    the marked `node`, as GraphDef field 1."""
    tensor = node.attr["value"].tensor.SerializeToString()
    body = NodeDef()
    body.CopyFrom(node)
    del body.attr["value"]
    del body.attr[HELD_ATTR]
    tensor_len = len(tensor) + len(length_delimited_head(4, size)) + size
    attr_len = len(length_delimited_head(8, tensor_len)) + tensor_len
    entry_head = (
        length_delimited_head(1, 5) + b"value" + length_delimited_head(2, attr_len)
    )
    entry_len = len(entry_head) + attr_len
    node_bytes = body.SerializeToString()
    node_len = len(node_bytes) + len(length_delimited_head(5, entry_len)) + entry_len
    head = (
        length_delimited_head(1, node_len) + node_bytes + length_delimited_head(5, entry_len) + entry_head
        + length_delimited_head(8, tensor_len) + tensor + length_delimited_head(4, size)
    )  # fmt: skip
    return head, node_len + len(length_delimited_head(1, node_len))


def _pieces(data: WeightBytes | ScaledWeight):
    """The weight's bytes in pieces, each piece's pages given back once written."""
    if type(data) is ScaledWeight:
        yield from (memoryview(piece).cast("B") for piece in data.pieces())
        return
    for start in range(0, data.nbytes, PIECE_BYTES):
        piece = data[start : start + PIECE_BYTES]
        yield memoryview(piece)
        piece.release()


def write_graph_def(module: ModuleOp, out: BinaryIO) -> None:
    """Write the module as a binary GraphDef to `out` (see the module's doc),
    refused in one line, before a byte is written, past protobuf's 2 GiB."""
    graph, held, rest = _held_graph(module)
    parts = _binary_parts(graph, held, rest)
    for head, data in parts:
        out.write(head)
        if data is not None:
            for piece in _pieces(data):
                out.write(piece)
    out.write(rest.SerializeToString())


def write_graph_def_text(module: ModuleOp, out: TextIO) -> None:
    """Write the module as a text GraphDef (.pbtxt) to `out`: the text
    `text_format.MessageToString` gives the GraphDef built whole, one node at
    a time, a held weight's escaped bytes a piece at a time (text_format
    escapes each byte alone). Refused as `write_graph_def` is."""
    graph, held, rest = _held_graph(module)
    _binary_parts(graph, held, rest)  # (the size check)
    marker = CEscape(HELD_MARKER, False)
    for node in graph.node:
        if HELD_ATTR not in node.attr:
            out.write(text_format.MessageToString(GraphDef(node=[node])))
            continue
        marked = NodeDef()
        marked.CopyFrom(node)
        del marked.attr[HELD_ATTR]
        marked.attr["value"].tensor.tensor_content = HELD_MARKER
        before, after = text_format.MessageToString(GraphDef(node=[marked])).split(
            marker
        )
        out.write(before)
        for piece in _pieces(held[node.attr[HELD_ATTR].i]):
            piece = piece.cast("B")
            for start in range(0, len(piece), TEXT_PIECE_BYTES):
                out.write(CEscape(piece[start : start + TEXT_PIECE_BYTES], False))
        out.write(after)
    out.write(text_format.MessageToString(rest))


def _held_graph(module: ModuleOp) -> tuple[GraphDef, list, GraphDef]:
    """The GraphDef with its mapped weights held, those weights, and the
    GraphDef's fields other than its nodes."""
    held: list = []
    graph = export_graph_def(module, held=held)
    rest = GraphDef()
    rest.CopyFrom(graph)  # (its nodes hold no weight)
    del rest.node[:]
    return graph, held, rest


def _binary_parts(graph: GraphDef, held: list, rest: GraphDef) -> list:
    """(bytes, a held weight written after them or None) per node of the
    binary GraphDef; refused in one line past protobuf's 2 GiB."""
    from graph_opt.formats.onnx import external_write as onnx_external_write

    parts, total = [], rest.ByteSize()
    for node in graph.node:
        if HELD_ATTR in node.attr:
            data = held[node.attr[HELD_ATTR].i]
            head, size = _framed_node(node, len(data))
            parts.append((head, data))
            total += size + len(data)
        else:
            body = node.SerializeToString()
            parts.append((length_delimited_head(1, len(body)) + body, None))
            total += len(parts[-1][0])
    if total > onnx_external_write.PROTOBUF_LIMIT:
        raise FrontendError(
            f"the GraphDef would be {total} bytes, past protobuf's 2 GiB limit, "
            "and a GraphDef keeps its weights inside: write ONNX (-t onnx) instead"
        )
    return parts
