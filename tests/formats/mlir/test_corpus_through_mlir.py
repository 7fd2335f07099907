"""Real models sent through MLIR text and back keep every weight bit for bit and
compute the same outputs (in onnxruntime, on their exports): the TensorFlow
corpus (tests/formats/tensorflow/corpus), the graphs of corpus/ (make_corpus.py:
a causal attention whose -inf mask and a whole number past 2^24 print in hex)
and the ONNX models of graph_opt.testing.model_zoo. bench/mlir_corpus.py does
the same on the dev-time corpus of torch exports (bench/make_zoo.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from graph_opt import api
from graph_opt.formats.onnx.importer import import_model
from graph_opt.testing.model_zoo import small_models
from graph_opt.testing.text_round_trip import (
    dense_values,
    hex_elements,
    onnx_outputs,
    through_mlir,
)

TF_CORPORA = [
    Path(__file__).parents[1] / "tensorflow" / "corpus",
    Path(__file__).parent / "corpus",
]
TF_MODELS = sorted(p.with_suffix("") for c in TF_CORPORA for p in c.glob("*.npz"))
ONNX_MODELS = small_models(60)


def assert_same_through_mlir(
    module: ModuleOp, inputs: dict[str, np.ndarray]
) -> list[bytes]:
    """The outputs, the same before and after the round trip."""
    expected = onnx_outputs(module, inputs)
    for generic in (False, True):
        back, _ = through_mlir(module, generic)
        assert dense_values(back) == dense_values(module)
        assert onnx_outputs(back, inputs) == expected
    return expected


@pytest.mark.parametrize("model", TF_MODELS, ids=lambda p: p.name)
def test_tf_corpus_through_mlir(model):
    data = np.load(model.with_suffix(".npz"))
    inputs = {k.removeprefix("in:"): data[k] for k in data.files if k.startswith("in:")}
    module = api.load(model.with_suffix(".pb"))
    expected = assert_same_through_mlir(module, inputs)
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


def test_the_attention_mask_and_a_large_whole_number_print_in_hex():
    """What makes the corpus check fail without bit-exact text."""
    module = api.load(Path(__file__).parent / "corpus" / "causal_attention.pb")
    assert hex_elements(api.to_mlir(module)) == 2


def boolean_weights_model():
    """What the transformers exports of bench/make_zoo.py hold: a ConstantOfShape of
    value true (the TorchScript exporter's masks), a splat true mask (dynamo's) and
    a mask of more than 100 elements, which prints in hex."""
    from onnx import TensorProto, helper, numpy_helper

    mask = np.arange(120).reshape(1, 120) % 3 == 0
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node(
            "ConstantOfShape",
            ["shape"],
            ["ones"],
            value=numpy_helper.from_array(np.array([True])),
        ),
        helper.make_node(
            "Constant", [], ["splat"], value=numpy_helper.from_array(np.ones(8, bool))
        ),
        helper.make_node("Constant", [], ["mask"], value=numpy_helper.from_array(mask)),
        helper.make_node("And", ["ones", "splat"], ["both"]),
        helper.make_node("Where", ["both", "x", "zero"], ["picked"]),
        helper.make_node("Where", ["mask", "y", "zero"], ["masked"]),
    ]
    graph = helper.make_graph(
        nodes,
        "booleans",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 120]),
        ],
        [
            helper.make_tensor_value_info("picked", TensorProto.FLOAT, [1, 8]),
            helper.make_tensor_value_info("masked", TensorProto.FLOAT, [1, 120]),
        ],
        [numpy_helper.from_array(np.zeros((), np.float32), "zero")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_boolean_weights_keep_their_bytes_through_mlir():
    """A true i1 element is the byte 1 after the round trip, as imported (xDSL's
    parser packs true as 0xFF: 12 models of the torch-export zoo differed)."""
    module = import_model(boolean_weights_model())
    text = api.to_mlir(module)
    assert text.count("dense<true>") == 2 and 'dense<"0x010000' in text
    rng = np.random.default_rng(0)
    inputs = {
        "x": rng.standard_normal((1, 8)).astype(np.float32),
        "y": rng.standard_normal((1, 120)).astype(np.float32),
    }
    assert_same_through_mlir(module, inputs)
