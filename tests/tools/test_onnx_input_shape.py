"""`--input-shape` on ONNX models: exporters leave the batch dim symbolic, and
lower-to-tosa needs it fixed."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.tools.toolkit_support import graph_opt


@pytest.fixture
def dynamic_batch_conv(tmp_path):
    """image[batch, 3, 4, 4] -> Conv -> Relu, as torch's exporters write a CNN."""
    weight = np.random.default_rng(0).standard_normal((2, 3, 1, 1)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["image", "w"], ["c"]),
            helper.make_node("Relu", ["c"], ["out"]),
        ],
        "g",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 4, 4])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", 2, 4, 4])],
        [numpy_helper.from_array(weight, "w")],
    )
    path = tmp_path / "model.onnx"
    onnx.save(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path
    )
    return path


def test_fixed_batch_lowers_to_tosa(dynamic_batch_conv):
    result = graph_opt(
        dynamic_batch_conv, "--input-shape", "image=1,3,4,4", "-p", "lower-to-tosa"
    )
    assert result.returncode == 0, result.stderr
    assert "tosa.conv2d" in result.stdout
    assert "func.return %out : tensor<1x2x4x4xf32>" in result.stdout
    assert "?" not in result.stdout


def test_dynamic_batch_is_refused_naming_the_input_and_the_option(dynamic_batch_conv):
    result = graph_opt(dynamic_batch_conv, "-p", "lower-to-tosa")
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert "dynamic inputs (image: tensor<?x3x4x4xf32>)" in line
    assert "--input-shape NAME=D0,D1,..." in line


@pytest.mark.parametrize(
    "spec, message",
    [
        ("input=1,3,4,4", "--input-shape names 'input', not an input of the model (inputs: image)"),
        ("image=1,3,4", "--input-shape image: 3 dims given, the input has 4"),
        ("image=1,1,4,4", "--input-shape image: dim 1 is 3 in the model, not 1"),
        ("image=1,x", "bad --input-shape 'image=1,x'"),
    ],
)  # fmt: skip
def test_a_bad_input_shape_is_one_line(dynamic_batch_conv, spec, message):
    result = graph_opt(dynamic_batch_conv, "--input-shape", spec)
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert message in line
