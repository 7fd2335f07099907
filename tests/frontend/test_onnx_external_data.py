"""Models whose tensors are stored in external files load, with their data."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt.frontend import onnx_import
from graph_opt.frontend.onnx_export import export_module
from graph_opt.frontend.onnx_import import import_model, load_model

RNG = np.random.default_rng(0)


def run(model: onnx.ModelProto, feeds: dict) -> list:
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def add_model(weight: np.ndarray, constant: np.ndarray) -> onnx.ModelProto:
    """y = x + w + c, with w an initializer and c a Constant node's tensor."""
    nodes = [
        helper.make_node(
            "Constant", [], ["c"], value=numpy_helper.from_array(constant, "c")
        ),
        helper.make_node("Add", ["x", "w"], ["xw"]),
        helper.make_node("Add", ["xw", "c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64])],
        [numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # one onnxruntime reads
    return model


@pytest.fixture(params=["search", "visit"])
def external_data_test(request, monkeypatch):
    """Both ways of finding external data: searching the bytes or visiting the tensors."""
    limit = 1 << 40 if request.param == "search" else -1
    monkeypatch.setattr(onnx_import, "BYTES_SEARCHED_PER_ITEM", limit)


@pytest.mark.parametrize("external", [True, False])
def test_tensors_in_a_separate_file(tmp_path, external, external_data_test):
    weight = RNG.standard_normal(64).astype(np.float32)
    constant = RNG.standard_normal(64).astype(np.float32)
    model = add_model(weight, constant)
    path = tmp_path / "model.onnx"
    onnx.save_model(
        model,
        path,
        save_as_external_data=external,
        all_tensors_to_one_file=True,
        location="weights.bin",
        size_threshold=0,
    )
    assert (tmp_path / "weights.bin").exists() == external
    loaded = load_model(str(path))
    exported = export_module(import_model(loaded))
    x = RNG.standard_normal(64).astype(np.float32)
    (y,) = run(exported, {"x": x})
    np.testing.assert_allclose(y, x + weight + constant, rtol=1e-6)


def test_weights_whose_bytes_spell_location(tmp_path, external_data_test):
    """The quick test for external data may say yes when there is none."""
    text = np.frombuffer(b"location" * 32, dtype=np.float32).copy()
    model = add_model(text, np.zeros(64, np.float32))
    path = tmp_path / "model.onnx"
    onnx.save_model(model, path)
    loaded = load_model(str(path))
    np.testing.assert_array_equal(
        numpy_helper.to_array(loaded.graph.initializer[0]), text
    )
