"""An ONNX model with a -inf attention mask and floats that print in hex, sent
`.onnx -> .mlir -> .onnx` through the command line (custom and generic form):
the weights come back bit for bit and onnxruntime computes the same outputs."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

GRAPH_OPT = shutil.which("graph-opt") or "graph-opt"
SPECIAL = np.array(
    [16777216.0, 9999999.0, -0.0, 1e-45, np.finfo(np.float32).max, np.inf],
    np.float32,
)


def masked_attention_model() -> onnx.ModelProto:
    """softmax(x + causal -inf mask) + special values."""
    mask = np.triu(np.full((6, 6), -np.inf, np.float32), 1)
    nodes = [
        helper.make_node("Add", ["x", "mask"], ["scores"]),
        helper.make_node("Softmax", ["scores"], ["weights"], axis=-1),
        helper.make_node("Add", ["weights", "special"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "masked",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6, 6])],
        [
            numpy_helper.from_array(mask, "mask"),
            numpy_helper.from_array(SPECIAL, "special"),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def graph_opt(*args) -> None:
    result = subprocess.run([GRAPH_OPT, *map(str, args)], capture_output=True)
    assert result.returncode == 0, result.stderr.decode()


def weights(model: onnx.ModelProto) -> dict[str, bytes]:
    return {t.name: numpy_helper.to_array(t).tobytes() for t in model.graph.initializer}


def run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, {"x": x})[0]


@pytest.mark.parametrize(
    "form", [[], ["--print-op-generic"]], ids=["custom", "generic"]
)
def test_special_floats_survive_onnx_mlir_onnx(tmp_path, form):
    original = masked_attention_model()
    onnx.save(original, tmp_path / "m.onnx")
    graph_opt(tmp_path / "m.onnx", "-t", "mlir", *form, "-o", tmp_path / "m.mlir")
    assert "0xff800000" in (tmp_path / "m.mlir").read_text()  # the -inf, in hex
    graph_opt(tmp_path / "m.mlir", "-t", "onnx", "-o", tmp_path / "m2.onnx")
    back = onnx.load(tmp_path / "m2.onnx")
    assert weights(back) == weights(original)
    x = np.random.default_rng(0).standard_normal((6, 6)).astype(np.float32)
    expected = run(original, x)
    assert np.isinf(expected).any() and np.isfinite(expected).any()
    assert run(back, x).tobytes() == expected.tobytes()
