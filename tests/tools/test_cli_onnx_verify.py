"""`graph-opt` verifies .onnx input while importing it (not again before the first
pass): invalid models fail with the verifier's one-line message, valid ones run."""

import shutil
import subprocess

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

GRAPH_OPT = shutil.which("graph-opt") or "graph-opt"


def conv_model(path, **attrs):
    weight = numpy_helper.from_array(np.ones((2, 3, 1, 1), np.float32), "w")
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [weight],
    )
    onnx.save(helper.make_model(graph), path)
    return path


def graph_opt(*args):
    return subprocess.run([GRAPH_OPT, *map(str, args)], capture_output=True, text=True)


def test_invalid_attribute_type_is_one_verifier_error(tmp_path):
    model = conv_model(tmp_path / "bad.onnx", group=1.0)
    result = graph_opt(
        model, "--no-validate", "-t", "onnx", "-o", tmp_path / "out.onnx"
    )
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"graph-opt: {model}: error: 1.000000e+00 : f32 should be of base attribute integer"
    ]
    assert not (tmp_path / "out.onnx").exists()


def test_disable_verify_skips_the_check(tmp_path):
    model = conv_model(tmp_path / "bad.onnx", group=1.0)
    result = graph_opt(model, "--disable-verify", "--no-validate")
    assert result.returncode == 0, result.stderr
    assert "group = 1.000000e+00 : f32" in result.stdout


def test_valid_model_runs_passes(tmp_path):
    model = conv_model(tmp_path / "ok.onnx", group=1)
    result = graph_opt(model, "-p", "cse,dce,canonicalize")
    assert result.returncode == 0, result.stderr
    assert "nn.conv" in result.stdout
