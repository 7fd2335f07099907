"""Weights as MLIR dialect resources: `dense_resource<key> : tensor<...>` with the
bytes in the file's `{-# dialect_resources: { builtin: { key: "0x..." } } #-}`
section, the form upstream MLIR uses for large constants (a blob is its
alignment as 4 little-endian bytes, then the data, in hex).

xDSL parses that section into the builtin dialect's `OpAsmDialectInterface`,
whose blob store lives on the dialect object, which xDSL shares across
contexts: graph-opt's contexts get a builtin dialect with a store of their own
(`builtin_dialect`), and `resolve_resources` turns the `dense_resource`s a
parse produced back into dense elements (so every pass, the interpreter and
the exporters see ordinary constants) and empties the store. A blob the parse
left in the mapped file (`parse_module` cuts large ones out of the text)
becomes dense elements holding a `HexWeight`: its digits are checked, not
kept decoded, and decoded again only when a pass reads them; printed back
as a resource, its digits are copied through as written.
`ResourcePrinter` prints large dense elements as resources and writes their
blobs itself, in pieces (xDSL's `print_metadata` takes every blob's hex at
once, twice the weights as text).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from mmap import mmap

import numpy as np
from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Dialect, Operation

from graph_opt.dialects.nn.attr_builders import dense_elements
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.formats.mlir.hex_literals import write_digits, write_hex
from graph_opt.formats.mlir.printer import BitExactPrinter
from graph_opt.weights import HexWeight, read_weight
from graph_opt.xdsl_compat.ir import replace_resource_blobs, resource_blobs

DEFAULT_MIN_BYTES = 64
"""`--weights-as-resources` without a size: dense elements of at least this many
bytes (16 f32 values) print as resources; shapes and scalars stay inline."""


class ResourceError(ValueError):
    """A `dense_resource` whose blob is missing or does not fit its type."""


class ResourceBlobs(OpAsmDialectInterface):
    """The builtin dialect's blob store, one per context."""

    def holds_any(self) -> bool:
        return bool(resource_blobs(self))

    def take(self, key: str) -> str | HexWeight | None:
        """The blob of `key`, removed from the store (a blob is decoded once)."""
        return resource_blobs(self).pop(key, None)

    def clear(self) -> None:
        replace_resource_blobs(self, {})


def builtin_dialect() -> Dialect:
    """xDSL's builtin dialect with a blob store of its own (a dialect factory)."""
    return Dialect(
        Builtin.name,
        list(Builtin.operations),
        list(Builtin.attributes),
        [ResourceBlobs()],
    )


def _blob_store(ctx: Context) -> ResourceBlobs | None:
    store = ctx.get_dialect(Builtin.name).get_interface(OpAsmDialectInterface)
    return store if isinstance(store, ResourceBlobs) else None


def resolve_resources(module: ModuleOp, ctx: Context) -> None:
    """Replace each `dense_resource<key>` attribute of `module` by the dense
    elements of its blob, read from the file's resource section by the parse
    that built `module` in `ctx`, then empty the context's store. Raises
    ResourceError for a missing or malformed blob."""
    store = _blob_store(ctx)
    if store is None or not store.holds_any():
        return
    decoded: dict[str, DenseIntOrFPElementsAttr] = {}

    def resolved(attr: Attribute) -> Attribute:
        if isinstance(attr, DenseResourceAttr):
            key = attr.resource_handle.data
            if key not in decoded:
                decoded[key] = _dense_from_blob(attr, store.take(key))
            return decoded[key]
        if isinstance(attr, ArrayAttr):
            items = [resolved(item) for item in attr.data]
            changed = any(a is not b for a, b in zip(items, attr.data))
            return ArrayAttr(items) if changed else attr
        if isinstance(attr, DictionaryAttr):
            entries = {k: resolved(v) for k, v in attr.data.items()}
            changed = any(entries[k] is not v for k, v in attr.data.items())
            return DictionaryAttr(entries) if changed else attr
        return attr

    try:
        for op in module.walk():
            for table in (op.properties, op.attributes):
                for name, value in table.items():
                    new = resolved(value)
                    if new is not value:
                        table[name] = new
    finally:
        store.clear()


def _dense_from_blob(
    attr: DenseResourceAttr, blob: str | HexWeight | None
) -> DenseIntOrFPElementsAttr:
    key, value_type = attr.resource_handle.data, attr.type
    where = f"dense_resource<{key}>"
    if not blob:
        raise ResourceError(
            f"{where}: no blob of that name in the file's dialect_resources section"
        )
    count, head = _blob_digits(blob)
    if count < 8:
        raise ResourceError(f"{where}: the blob has no 4-byte alignment prefix")
    if count % 2:
        raise ResourceError(f"{where}: the blob is not a hex string")
    try:
        alignment = int.from_bytes(bytes.fromhex(head), "little")
        data = _blob_data(blob)
    except ValueError:
        raise ResourceError(f"{where}: the blob is not a hex string") from None
    if alignment == 0 or alignment & (alignment - 1):
        raise ResourceError(
            f"{where}: the blob's alignment {alignment} is not a power of two"
        )
    try:
        itemsize = numpy_dtype(value_type.get_element_type()).itemsize
    except ValueError as error:
        raise ResourceError(f"{where}: {error}") from None
    expected = itemsize * math.prod(value_type.get_shape())
    if len(data) != expected:
        raise ResourceError(
            f"{where}: the blob holds {len(data)} bytes, {value_type} needs {expected}"
        )
    if isinstance(value_type, TensorType):
        return dense_elements(value_type, data)
    return DenseIntOrFPElementsAttr(value_type, BytesAttr(read_weight(data)))


def _blob_digits(blob: str | HexWeight) -> tuple[int, str]:
    """How many characters the blob has after `0x`, and its first 8 (the
    alignment)."""
    if isinstance(blob, HexWeight):
        head = blob.source[blob.start : blob.start + 8]
        return blob.end - blob.start, str(head, "ascii", "replace")
    return len(blob) - 2, blob[2:10]


def _blob_data(blob: str | HexWeight) -> bytes | HexWeight:
    """The blob's data after its alignment prefix: decoded from a string, or
    from text read into memory (holding its digits would keep twice the
    bytes); of a mapped file, a `HexWeight` of the digits, checked a piece at
    a time (then given back). Raises ValueError for digits that are not hex."""
    if not isinstance(blob, HexWeight):
        return bytes.fromhex(blob[10:])
    head = bytes(blob.source[blob.start : blob.start + 8])
    data = HexWeight(blob.source, blob.start + 8, blob.end, head)
    if type(blob.source) is not mmap:
        return data.values()
    for _ in data.pieces():
        pass
    return data


INLINE_OPERANDS = {"tosa.rescale": (1, 2)}
"""Operands (by index) whose constants stay inline: upstream MLIR's
TosaToLinalg takes a rescale's multiplier and shift as tables only when both
are inline or both not; with one of each, the inline one becomes an empty
table read out of bounds (on IREE 3.13, zeros or stale memory instead of the
int8 values; tests/lowering/test_int8_resources_iree.py)."""


def read_as_parameter(op: Operation) -> bool:
    """Whether a use of op's results is an operand of INLINE_OPERANDS."""
    return any(
        use.index in INLINE_OPERANDS.get(use.operation.name, ())
        for result in op.results
        for use in result.uses
    )


class ResourcePrinter(BitExactPrinter):
    """A Printer that prints dense elements of at least `min_bytes` bytes (not
    splats, nor constants read as INLINE_OPERANDS) as
    `dense_resource<wN>`, and their blobs with `print_resources`."""

    def __init__(self, *args, min_bytes: int = DEFAULT_MIN_BYTES, **kwargs):
        super().__init__(*args, **kwargs)
        self.min_bytes = min_bytes
        self._keys: dict[int, str] = {}
        self._blobs: dict[str, DenseIntOrFPElementsAttr] = {}
        self._inline = False

    def print_op(self, op: Operation) -> None:
        outer, self._inline = self._inline, read_as_parameter(op)
        super().print_op(op)
        self._inline = outer

    def print_attribute(self, attribute: Attribute) -> None:
        if (
            not self._inline
            and isinstance(attribute, DenseIntOrFPElementsAttr)
            and self._as_resource(attribute)
        ):
            key = self._keys.get(id(attribute))
            if key is None:
                key = self._keys[id(attribute)] = f"w{len(self._blobs)}"
                self._blobs[key] = attribute
            attribute = DenseResourceAttr.from_params(key, attribute.type)
        super().print_attribute(attribute)

    def _as_resource(self, attribute: DenseIntOrFPElementsAttr) -> bool:
        """Large enough, in a standard element type, and not a splat (or a
        blob read lazily)."""
        data = attribute.data.data
        if len(data) < max(self.min_bytes, 1):
            return False
        try:
            itemsize = numpy_dtype(attribute.type.get_element_type()).itemsize
        except ValueError:
            return False
        if len(data) != itemsize * math.prod(attribute.type.get_shape()):
            return False
        if type(data) is HexWeight:  # (read as a resource: printed as one unread)
            return True
        elements = np.frombuffer(read_weight(data), dtype=f"u{itemsize}")
        return bool((elements != elements[0]).any())

    def print_resources(self) -> None:
        """The `{-# dialect_resources ... #-}` section of the resources printed,
        as MLIR lays it out; each blob's hex is written in pieces, never whole
        (a `HexWeight`'s copied from its file, not decoded)."""
        if not self._blobs:
            return
        write = self.stream.write
        write("\n\n{-#\n  dialect_resources: {\n    builtin: {\n")
        for index, (key, attr) in enumerate(self._blobs.items()):
            write(f'      {key}: "0x')
            data = attr.data.data
            if type(data) is HexWeight:  # (its digits as written)
                write_digits(self.stream, data.head)
                for digits in data.digit_pieces():
                    write_digits(self.stream, digits)
            else:
                for piece in _blob_pieces(attr):
                    write_hex(self.stream, piece)
            write('",\n' if index + 1 < len(self._blobs) else '"\n')
        write("    }\n  }\n#-}")


HEX_PIECE_BYTES = 1 << 20


def _blob_pieces(attr: DenseIntOrFPElementsAttr) -> Iterator[bytes | memoryview]:
    """A resource blob in pieces: the alignment (4 bytes, little endian), then
    the data (i1 as 0 or 1: xDSL's parser stores true as 0xFF)."""
    dtype = numpy_dtype(attr.type.get_element_type())
    yield dtype.itemsize.to_bytes(4, "little")
    data = memoryview(read_weight(attr.data.data))
    for start in range(0, len(data), HEX_PIECE_BYTES):
        piece = data[start : start + HEX_PIECE_BYTES]
        if dtype == np.bool_:
            piece = (np.frombuffer(piece, dtype=np.uint8) != 0).astype(np.uint8)
            piece = piece.tobytes()
        yield piece


def print_with_resources(
    module: ModuleOp, stream, min_bytes: int = DEFAULT_MIN_BYTES, **printer_options
) -> None:
    """Print `module` to `stream` with its large weights as resources."""
    printer = ResourcePrinter(stream=stream, min_bytes=min_bytes, **printer_options)
    printer.print_op(module)
    printer.print_resources()
    stream.write("\n")
