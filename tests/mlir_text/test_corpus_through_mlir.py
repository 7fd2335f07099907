"""Real models sent through MLIR text and back keep every weight bit for bit and
compute the same outputs (in onnxruntime, on their exports): the TensorFlow
corpus (tests/frontend/tensorflow/corpus), the graphs of corpus/ (make_corpus.py:
a causal attention whose -inf mask and a whole number past 2^24 print in hex)
and the ONNX models of graph_opt.testing.model_zoo. bench/mlir_corpus.py does
the same on the dev-time corpus of torch exports (bench/make_zoo.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp

from graph_opt import api
from graph_opt.dialects.nn.dense import to_numpy
from graph_opt.frontend.onnx_export import export_module
from graph_opt.frontend.onnx_import import import_model
from graph_opt.testing.model_zoo import small_models

TF_CORPORA = [
    Path(__file__).parents[1] / "frontend" / "tensorflow" / "corpus",
    Path(__file__).parent / "corpus",
]
TF_MODELS = sorted(p.with_suffix("") for c in TF_CORPORA for p in c.glob("*.npz"))
ONNX_MODELS = small_models(60)


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


def outputs(module: ModuleOp, inputs: dict[str, np.ndarray]) -> list[bytes]:
    session = ort.InferenceSession(
        export_module(module).SerializeToString(), providers=["CPUExecutionProvider"]
    )
    feeds = {i.name: inputs[i.name] for i in session.get_inputs()}
    return [np.asarray(out).tobytes() for out in session.run(None, feeds)]


def assert_same_through_mlir(
    module: ModuleOp, inputs: dict[str, np.ndarray]
) -> list[bytes]:
    """The outputs, the same before and after the round trip."""
    expected = outputs(module, inputs)
    for generic in (False, True):
        back = api.parse(api.to_mlir(module, generic=generic))
        assert dense_values(back) == dense_values(module)
        assert outputs(back, inputs) == expected
    return expected


@pytest.mark.parametrize("model", TF_MODELS, ids=lambda p: p.name)
def test_tf_corpus_through_mlir(model):
    data = np.load(model.with_suffix(".npz"))
    inputs = {k.removeprefix("in:"): data[k] for k in data.files if k.startswith("in:")}
    expected = assert_same_through_mlir(api.load(model.with_suffix(".pb")), inputs)
    tensorflow = data["out:0"]
    actual = np.frombuffer(expected[0], tensorflow.dtype).reshape(tensorflow.shape)
    np.testing.assert_allclose(actual, tensorflow, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("model", ONNX_MODELS)
def test_onnx_models_through_mlir(model):
    proto = ONNX_MODELS[model]()
    rng = np.random.default_rng(0)
    inputs = {
        i.name: rng.standard_normal(
            [d.dim_value for d in i.type.tensor_type.shape.dim]
        ).astype(np.float32)
        for i in proto.graph.input
    }
    assert_same_through_mlir(import_model(proto), inputs)
