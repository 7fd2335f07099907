"""bench/zoo.py keeps working: on a two-model corpus built here with onnx.helper
(a float model and a QDQ one) plus a broken file, with only the graph-opt
column, it prints a row per model, exact round trips, and a FAIL cell instead
of crashing on the broken one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

pytest.importorskip("onnxruntime")

ZOO_SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "zoo.py"


def float_model() -> onnx.ModelProto:
    """Conv, BatchNormalization, Relu and an Identity on a dynamic batch."""
    rng = np.random.default_rng(0)
    weights = [
        numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3), np.float32), "w"),
        numpy_helper.from_array(rng.random(4, np.float32) + 0.5, "scale"),
        numpy_helper.from_array(rng.standard_normal(4, np.float32), "bias"),
        numpy_helper.from_array(rng.standard_normal(4, np.float32), "mean"),
        numpy_helper.from_array(rng.random(4, np.float32) + 0.5, "var"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node(
            "BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["b"]
        ),
        helper.make_node("Relu", ["b"], ["r"]),
        helper.make_node("Identity", ["r"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "float",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, 8, 8])],
        weights,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def qdq_model() -> onnx.ModelProto:
    """QuantizeLinear, DequantizeLinear, Relu, QuantizeLinear, DequantizeLinear."""
    scale = numpy_helper.from_array(np.array(0.05, np.float32), "s")
    zero = numpy_helper.from_array(np.array(128, np.uint8), "z")
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q0"]),
        helper.make_node("DequantizeLinear", ["q0", "s", "z"], ["d0"]),
        helper.make_node("Relu", ["d0"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "s", "z"], ["q1"]),
        helper.make_node("DequantizeLinear", ["q1", "s", "z"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "qdq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 16])],
        [scale, zero],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    rng = np.random.default_rng(1)
    onnx.save(float_model(), tmp_path / "tiny_conv.onnx")
    np.savez(
        tmp_path / "tiny_conv.inputs.npz",
        x=rng.standard_normal((2, 3, 8, 8), np.float32),
    )
    onnx.save(qdq_model(), tmp_path / "tiny_qdq.onnx")
    np.savez(
        tmp_path / "tiny_qdq.inputs.npz", x=rng.standard_normal((2, 16), np.float32)
    )
    (tmp_path / "broken.onnx").write_bytes(b"not a model")
    np.savez(tmp_path / "broken.inputs.npz", x=np.zeros(1, np.float32))
    manifest = [
        {
            "name": "broken",
            "exporter": "bytes",
            "opset": 17,
            "source": "-",
            "qdq": False,
        },
        {
            "name": "tiny_conv",
            "exporter": "helper",
            "opset": 17,
            "source": "-",
            "qdq": False,
        },
        {
            "name": "tiny_qdq",
            "exporter": "helper",
            "opset": 13,
            "source": "-",
            "qdq": True,
        },
    ]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    return tmp_path


def test_zoo_script_on_a_tiny_corpus(corpus: Path):
    done = subprocess.run(
        [sys.executable, str(ZOO_SCRIPT), "--zoo", str(corpus), "--tools", "graph-opt"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("model"))
    assert header.split()[:6] == [
        "model",
        "exporter",
        "opset",
        "qdq",
        "nodes",
        "graph-opt",
    ]
    assert "onnxsim" not in header
    rows = {line.split()[0]: line.split() for line in lines if line.startswith("tiny_")}
    # nodes before, after; the round trip and optimize errors are the last two cells.
    conv, qdq = rows["tiny_conv"], rows["tiny_qdq"]
    assert conv[4] == "4" and int(conv[5]) < 4
    assert qdq[3] == "yes" and qdq[-2:] == ["0.0e+00", "0.0e+00"]
    assert float(conv[-1]) < 1e-4
    broken = next(line for line in lines if line.startswith("broken"))
    assert "FAIL(" in broken
    assert "1 models where graph-opt falls short:" in done.stdout
    assert "- broken:" in done.stdout
