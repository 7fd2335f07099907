"""--onnx-contrib-ops: fused ops exported as onnxruntime's com.microsoft ops."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest

ort = pytest.importorskip("onnxruntime")

EXAMPLE = Path(__file__).parents[2] / "examples" / "conv_bn_relu.onnx"


def graph_opt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["graph-opt", str(EXAMPLE), *args], capture_output=True, text=True
    )


def run(model_bytes: bytes, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x})[0]


def test_fused_conv_is_written_as_onnxruntimes_fused_conv(tmp_path):
    out = tmp_path / "out.onnx"
    result = graph_opt("-p", "fold-bn,fuse-ops", "-o", str(out), "--onnx-contrib-ops")
    assert result.returncode == 0, result.stderr
    model = onnx.load(out)
    assert ("FusedConv", "com.microsoft") in {
        (n.op_type, n.domain) for n in model.graph.node
    }
    assert "com.microsoft" in {o.domain for o in model.opset_import}
    original = onnx.load(EXAMPLE)
    dims = [
        d.dim_value or 1 for d in original.graph.input[0].type.tensor_type.shape.dim
    ]
    x = np.random.default_rng(0).standard_normal(dims).astype(np.float32)
    np.testing.assert_allclose(
        run(out.read_bytes(), x),
        run(original.SerializeToString(), x),
        rtol=1e-4,
        atol=1e-5,
    )


def test_the_option_needs_onnx_output():
    result = graph_opt("--onnx-contrib-ops")
    assert result.returncode != 0
    assert "--onnx-contrib-ops is an option of the ONNX output" in result.stderr
