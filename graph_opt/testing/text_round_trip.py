"""A module sent through MLIR text and back, compared bit for bit: every dense
elements attribute and the outputs onnxruntime computes on its ONNX export
(tests/formats/mlir/test_corpus_through_mlir.py, bench/mlir_corpus.py)."""

from __future__ import annotations

import re

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp

from graph_opt import api
from graph_opt.dialects.nn.dense import to_numpy

HEX_ELEMENT = re.compile(r'dense<[^">]*0x')
"""A dense literal with an element in hex (a float's bits), not a hex string."""


def dense_values(module: ModuleOp) -> list[tuple[str, str, bytes]]:
    """Every dense elements attribute of every op, in order, with the bytes of all
    its elements (a splat may hold one)."""
    return [
        (op.name, name, np.ascontiguousarray(to_numpy(value)).tobytes())
        for op in module.walk()
        for table in (op.properties, op.attributes)
        for name, value in table.items()
        if isinstance(value, DenseIntOrFPElementsAttr)
    ]


def through_mlir(module: ModuleOp, generic: bool) -> tuple[ModuleOp, str]:
    """The module parsed back from its text, and the text."""
    text = api.to_mlir(module, generic=generic)
    return api.parse(text), text


def hex_elements(text: str) -> int:
    """How many dense literals of `text` write an element as its bits."""
    return len(HEX_ELEMENT.findall(text))


def onnx_outputs(module: ModuleOp, inputs: dict[str, np.ndarray]) -> list[bytes]:
    """The bytes of each output onnxruntime computes on the module's export (the
    inputs by graph input name)."""
    import onnxruntime as ort

    from graph_opt.formats.onnx.exporter import export_module

    session = ort.InferenceSession(
        export_module(module).SerializeToString(), providers=["CPUExecutionProvider"]
    )
    feeds = {i.name: inputs[i.name] for i in session.get_inputs()}
    return [np.asarray(out).tobytes() for out in session.run(None, feeds)]
