"""ONNX tensors stored in external files, read by graph-opt itself (never by
onnx, whose older releases follow symlinks out of the model's directory):
through `model_files`, from the directory the model came from or the one given
explicitly, and refused when there is none (a model read from stdin or given
as a ModelProto), rather than read from the working directory.

Initializers large enough to matter are mapped, not read (`map_initializers`):
their constants hold the file's bytes in place (`graph_opt.weights`)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator
from contextlib import ExitStack

import onnx
from google.protobuf.message import DecodeError
from onnx import AttributeProto, TensorProto
from xdsl.dialects.builtin import BytesAttr
from xdsl.ir import Operation

from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.model_files import ModelDirectory, ModelFile
from graph_opt.weights import MappedFile, WeightBytes

MAP_MIN_ELEMENTS = 1024
"""Initializers of more elements than this are mapped (the smaller ones are
read: shape inference sees their values, and a mapping costs more than them)."""

_HOLDING_TENSORS = {
    AttributeProto.TENSOR,
    AttributeProto.TENSORS,
    AttributeProto.SPARSE_TENSOR,
    AttributeProto.SPARSE_TENSORS,
    AttributeProto.GRAPH,
    AttributeProto.GRAPHS,
}


def external_tensors(model: onnx.ModelProto) -> Iterator[TensorProto]:
    """Every tensor of the model (initializers, attributes, subgraphs, local
    functions) whose data lies in an external file."""
    yield from _graph_tensors(model.graph)
    for function in model.functions:
        yield from nodes_external_tensors(function.node)


def nodes_external_tensors(nodes: Iterable[onnx.NodeProto]) -> Iterator[TensorProto]:
    for node in nodes:
        for attr in node.attribute:
            if attr.type in _HOLDING_TENSORS:
                yield from _attribute_tensors(attr)


def _graph_tensors(graph: onnx.GraphProto) -> Iterator[TensorProto]:
    for tensor in graph.initializer:
        if tensor.data_location == TensorProto.EXTERNAL:
            yield tensor
    for sparse in graph.sparse_initializer:
        yield from _sparse_tensors(sparse)
    yield from nodes_external_tensors(graph.node)


def _attribute_tensors(attr: AttributeProto) -> Iterator[TensorProto]:
    dense = [attr.t] if attr.HasField("t") else []
    for tensor in [*dense, *attr.tensors]:
        if tensor.data_location == TensorProto.EXTERNAL:
            yield tensor
    sparse = [attr.sparse_tensor] if attr.HasField("sparse_tensor") else []
    for tensor in [*sparse, *attr.sparse_tensors]:
        yield from _sparse_tensors(tensor)
    graphs = [attr.g] if attr.HasField("g") else []
    for graph in [*graphs, *attr.graphs]:
        yield from _graph_tensors(graph)


def _sparse_tensors(sparse: onnx.SparseTensorProto) -> Iterator[TensorProto]:
    for tensor in (sparse.values, sparse.indices):
        if tensor.data_location == TensorProto.EXTERNAL:
            yield tensor


def read_external_data(
    tensors: Iterable[TensorProto], directory: str | os.PathLike | None, source: str
) -> None:
    """Read each external tensor's bytes into it from `directory`; without a
    directory, refuse the first one."""
    with ExternalFiles(directory, source) as files:
        for tensor in tensors:
            file, offset, length = files.checked(tensor)
            tensor.raw_data = file.read(offset, length)
            tensor.data_location = TensorProto.DEFAULT
            del tensor.external_data[:]


def map_initializers(
    graph: onnx.GraphProto, directory: str | os.PathLike | None, source: str
) -> dict[str, WeightBytes]:
    """The bytes of the graph's large external initializers, by name, mapped
    from `directory` with the checks of `read_external_data` (the tensors are
    left as they are: the caller takes their data from the result: each is left with no data and no external placement)."""
    mappable = [
        t
        for t in graph.initializer
        if t.data_location == TensorProto.EXTERNAL
        and math.prod(t.dims) > MAP_MIN_ELEMENTS
        and t.data_type != TensorProto.BOOL  # (stored as 0/1, held as 0/0xFF)
        and _byte_size(t) is not None
    ]
    mapped: dict[str, WeightBytes] = {}
    with ExternalFiles(directory, source) as files:
        for tensor in mappable:
            file, offset, length = files.checked(tensor)
            mapping = files.mapping(file)
            mapped[tensor.name] = mapping.region(offset, file.span(offset, length))
            tensor.data_location = TensorProto.DEFAULT
            del tensor.external_data[:]
    return mapped


class ExternalFiles:
    """The external files of one model, each opened once, read with checks."""

    def __init__(self, directory: str | os.PathLike | None, source: str):
        self.files = ModelDirectory(directory) if directory is not None else None
        self.source = source
        self.opened = ExitStack()
        self.by_location: dict[str, ModelFile] = {}
        self.mappings: dict[int, MappedFile] = {}

    def __enter__(self) -> ExternalFiles:
        return self

    def __exit__(self, *exc) -> None:
        self.opened.close()

    def checked(self, tensor: TensorProto) -> tuple[ModelFile, int, int | None]:
        """The tensor's file, offset and length, its size checked."""
        source = self.source
        location, offset, length = _placement(tensor, source)
        if self.files is None:
            raise FrontendError(
                f"{source}: tensor {tensor.name!r} is stored in the external file "
                f"{location!r} and no directory to read it from was given "
                "(--external-data-dir DIR, or base_dir= in the API)"
            )
        if location not in self.by_location:
            opened = self.files.open(location)
            self.by_location[location] = self.opened.enter_context(opened)
        file = self.by_location[location]
        stored = file.span(offset, length)
        expected = _byte_size(tensor)
        if expected is not None and stored != expected:
            raise FrontendError(
                f"{source}: tensor {tensor.name!r} has {stored} bytes in "
                f"{location!r}, expected {expected}"
            )
        return file, offset, length

    def mapping(self, file: ModelFile) -> MappedFile:
        if id(file) not in self.mappings:
            self.mappings[id(file)] = file.map()
        return self.mappings[id(file)]


_PACKED = {
    getattr(TensorProto, name)
    for name in ("INT4", "UINT4", "FLOAT4E2M1", "INT2", "UINT2")
    if hasattr(TensorProto, name)
}
"""Element types stored several to a byte."""


def _byte_size(tensor: TensorProto) -> int | None:
    """The bytes a tensor of its type and dims holds (None: strings, packed types)."""
    if tensor.data_type in _PACKED or tensor.data_type == TensorProto.STRING:
        return None
    try:
        itemsize = onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type).itemsize
    except (KeyError, ValueError, TypeError):
        return None
    return math.prod(tensor.dims) * itemsize


def _placement(tensor: TensorProto, source: str) -> tuple[str, int, int | None]:
    """(location, offset, length) of an external tensor's bytes."""
    keys = {entry.key: entry.value for entry in tensor.external_data}
    location = keys.get("location", "")
    if not location:
        raise FrontendError(
            f"{source}: tensor {tensor.name!r} is external but names no file"
        )
    try:
        offset = int(keys.get("offset", 0))
        length = int(keys["length"]) if "length" in keys else None
    except ValueError as e:
        raise FrontendError(
            f"{source}: tensor {tensor.name!r} has a bad external offset or length"
        ) from e
    return location, offset, length


def read_opaque_external_data(
    module: Operation, directory: str | os.PathLike | None, source: str
) -> None:
    """The same for the ONNX attributes an nn.opaque of an MLIR module keeps
    serialized (subgraph initializers, sparse tensors): read into the op from
    `directory`, or refused without it."""
    for op in module.walk():
        if type(op) is not OpaqueOp or op.serialized_attrs is None:
            continue
        if op.domain is not None and op.domain.data == "tf":
            continue  # a TensorFlow AttrValue map, which names no file
        holder = onnx.NodeProto()
        try:
            holder.ParseFromString(op.serialized_attrs.data)
        except DecodeError:
            continue  # exported and diagnosed as it is
        tensors = list(nodes_external_tensors([holder]))
        if tensors:
            read_external_data(tensors, directory, source)
            op.serialized_attrs = BytesAttr(holder.SerializeToString())
