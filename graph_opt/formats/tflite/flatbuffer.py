"""A TFLite model as tensors and operators, written as a .tflite flatbuffer
(schema version 3) through the `tflite` package's generated schema code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graph_opt.formats.errors import FrontendError
from graph_opt.quantization.tensor_quantization import TensorQuantization

SCHEMA_VERSION = 3
BUFFER_ALIGNMENT = 16
"""The schema's `force_align: 16` on buffer data."""
TENSOR_TYPES = {
    np.dtype(np.float32): "FLOAT32",
    np.dtype(np.int32): "INT32",
    np.dtype(np.int64): "INT64",
    np.dtype(np.int8): "INT8",
    np.dtype(np.uint8): "UINT8",
    np.dtype(np.int16): "INT16",
    np.dtype(np.bool_): "BOOL",
}


@dataclass
class Tensor:
    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    quantization: TensorQuantization | None = None
    data: np.ndarray | None = None
    """The constant's values; None for activations."""


@dataclass
class Operator:
    code: str
    """A BuiltinOperator name (CONV_2D)."""
    inputs: list[int]
    """Tensor indices; -1 for an optional input left out."""
    outputs: list[int]
    options: tuple[str, dict[str, Any]] | None = None
    """(BuiltinOptions name, {field: value}) as the schema names them; an
    array value is an int32 vector."""
    version: int = 1


@dataclass
class Graph:
    tensors: list[Tensor] = field(default_factory=list)
    operators: list[Operator] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)

    def add(self, tensor: Tensor) -> int:
        self.tensors.append(tensor)
        return len(self.tensors) - 1


def schema():
    """The `tflite` package (generated from TFLite's schema.fbs), imported lazily."""
    try:
        import tflite
    except ImportError as e:
        raise FrontendError(
            "writing .tflite needs the `tflite` package: pip install 'graph-opt[tflite]'"
        ) from e
    return tflite


def serialize(graph: Graph, description: str = "graph-opt") -> bytes:
    """The graph as a .tflite flatbuffer (one subgraph)."""
    import flatbuffers

    fb = schema()
    b = flatbuffers.Builder(1024)
    codes = sorted({(op.code, op.version) for op in graph.operators})
    code_index = {c: i for i, c in enumerate(codes)}
    buffers = [None] + [t.data for t in graph.tensors if t.data is not None]
    buffer_offsets = [_buffer(b, fb, data) for data in buffers]
    tensors, next_buffer = [], 1
    for t in graph.tensors:
        buffer = 0
        if t.data is not None:
            buffer, next_buffer = next_buffer, next_buffer + 1
        tensors.append(_tensor(b, fb, t, buffer))
    operators = [
        _operator(b, fb, op, code_index[(op.code, op.version)])
        for op in graph.operators
    ]
    subgraph = _table(
        b, fb, "SubGraph",
        Tensors=_offsets(b, tensors), Inputs=_ints(b, graph.inputs),
        Outputs=_ints(b, graph.outputs), Operators=_offsets(b, operators),
        Name=b.CreateString("main"),
    )  # fmt: skip
    opcodes = [_opcode(b, fb, name, version) for name, version in codes]
    model = _table(
        b, fb, "Model",
        Version=SCHEMA_VERSION, OperatorCodes=_offsets(b, opcodes),
        Subgraphs=_offsets(b, [subgraph]), Description=b.CreateString(description),
        Buffers=_offsets(b, buffer_offsets),
    )  # fmt: skip
    b.Finish(model, file_identifier=b"TFL3")
    return bytes(b.Output())


def _table(b, fb, name: str, **fields) -> int:
    """A table of the schema: `{name}Start`, `{name}Add{Field}` for each, `{name}End`."""
    getattr(fb, f"{name}Start")(b)
    for key, value in fields.items():
        if value is not None:
            getattr(fb, f"{name}Add{key}")(b, value)
    return getattr(fb, f"{name}End")(b)


def _offsets(b, offsets: list[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for offset in reversed(offsets):
        b.PrependUOffsetTRelative(offset)
    return b.EndVector()


def _ints(b, values, dtype=np.int32) -> int:
    return b.CreateNumpyVector(np.asarray(values, dtype).ravel())


def _buffer(b, fb, data: np.ndarray | None) -> int:
    if data is None:
        return _table(b, fb, "Buffer")
    raw = np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8)
    b.Prep(BUFFER_ALIGNMENT, len(raw))  # the data starts 16-aligned
    return _table(b, fb, "Buffer", Data=b.CreateNumpyVector(raw))


def _tensor(b, fb, t: Tensor, buffer: int) -> int:
    if t.dtype not in TENSOR_TYPES:
        raise FrontendError(f"tensor {t.name}: {t.dtype} has no TFLite tensor type")
    quantization = None
    if t.quantization is not None:
        q = t.quantization
        zero_points = np.full(len(q.scales), q.zero_point, np.int64)
        quantization = _table(
            b, fb, "QuantizationParameters",
            Scale=b.CreateNumpyVector(np.asarray(q.scales, "<f4")),
            ZeroPoint=b.CreateNumpyVector(zero_points.astype("<i8")),
            QuantizedDimension=q.axis or 0,
        )  # fmt: skip
    return _table(
        b, fb, "Tensor",
        Shape=_ints(b, t.shape), Type=getattr(fb.TensorType, TENSOR_TYPES[t.dtype]),
        Buffer=buffer, Name=b.CreateString(t.name), Quantization=quantization,
    )  # fmt: skip


def _operator(b, fb, op: Operator, opcode_index: int) -> int:
    options_type, options = 0, None
    if op.options is not None:
        name, fields = op.options
        options_type = getattr(fb.BuiltinOptions, name)
        fields = {
            key: _ints(b, value) if isinstance(value, np.ndarray) else value
            for key, value in fields.items()
        }
        options = _table(b, fb, name, **fields)
    return _table(
        b, fb, "Operator",
        OpcodeIndex=opcode_index, Inputs=_ints(b, op.inputs),
        Outputs=_ints(b, op.outputs), BuiltinOptionsType=options_type,
        BuiltinOptions=options,
    )  # fmt: skip


def _opcode(b, fb, name: str, version: int) -> int:
    code = getattr(fb.BuiltinOperator, name)
    return _table(
        b, fb, "OperatorCode",
        DeprecatedBuiltinCode=min(code, 127), BuiltinCode=code, Version=version,
    )  # fmt: skip


def operator_names(data: bytes) -> list[str]:
    """The builtin operator names of a .tflite model's first subgraph, in order."""
    fb = schema()
    names = {v: k for k, v in vars(fb.BuiltinOperator).items() if k.isupper()}
    model = fb.Model.GetRootAs(data, 0)
    graph = model.Subgraphs(0)
    return [
        names[model.OperatorCodes(graph.Operators(i).OpcodeIndex()).BuiltinCode()]
        for i in range(graph.OperatorsLength())
    ]
