"""`graph-opt-run` refuses inputs that contradict the model's declared types, as
onnxruntime does, and without -o prints the outputs."""

import os
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from graph_opt import api
from graph_opt.interpreter import run_function

EXAMPLE = Path(__file__).parents[2] / "examples" / "conv_bn_relu.onnx"


def graph_opt_run(*args, cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GRAPH_OPT_TRACEBACK"}
    return subprocess.run(
        ["graph-opt-run", *map(str, args)], cwd=cwd, env=env, capture_output=True
    )


def refused(result: subprocess.CompletedProcess, *fragments: str) -> str:
    assert result.returncode == 1, result
    (line,) = result.stderr.decode().splitlines()
    for fragment in fragments:
        assert fragment in line, line
    return line


@pytest.mark.parametrize(
    "shape, dtype, given",
    [
        ((1, 3, 20, 20), np.float32, "float32 of shape (1, 3, 20, 20)"),
        ((1, 3, 16), np.float32, "float32 of shape (1, 3, 16)"),
        ((1, 3, 16, 16), np.float64, "float64 of shape (1, 3, 16, 16)"),
        ((1, 3, 16, 16), np.int32, "int32 of shape (1, 3, 16, 16)"),
    ],
)
def test_an_input_of_another_shape_or_dtype_is_refused(tmp_path, shape, dtype, given):
    np.save(tmp_path / "x.npy", np.ones(shape, dtype))
    result = graph_opt_run(EXAMPLE, "-i", "x.npy", "-o", "y.npz", cwd=tmp_path)
    refused(result, "input input: given " + given, "tensor<1x3x16x16xf32>")
    assert not (tmp_path / "y.npz").exists()


def symbolic_add(path: Path) -> None:
    """y = a + b, both declared [N, 2] with the symbolic dim N."""
    inputs = [
        helper.make_tensor_value_info(n, TensorProto.FLOAT, ["N", 2]) for n in "ab"
    ]
    output = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])
    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["y"])], "add", inputs, [output]
    )
    onnx.save(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path
    )


def test_symbolic_dims_take_any_size_but_one_size_per_name(tmp_path):
    symbolic_add(tmp_path / "add.onnx")
    np.savez(
        tmp_path / "any.npz",
        a=np.ones((5, 2), np.float32),
        b=np.ones((5, 2), np.float32),
    )
    np.savez(
        tmp_path / "mixed.npz",
        a=np.ones((1, 2), np.float32),
        b=np.ones((3, 2), np.float32),
    )
    result = graph_opt_run("add.onnx", "-i", "any.npz", "-o", "y.npz", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    result = graph_opt_run("add.onnx", "-i", "mixed.npz", "-o", "y.npz", cwd=tmp_path)
    refused(result, "input b: dim 0 ('N') is 3", "input a's dim 0", "is 1")


def test_an_input_the_model_does_not_have_is_refused(tmp_path):
    np.savez(
        tmp_path / "x.npz", input=np.ones((1, 3, 16, 16), np.float32), extra=np.ones(1)
    )
    result = graph_opt_run(EXAMPLE, "-i", "x.npz", "-o", "y.npz", cwd=tmp_path)
    refused(result, "no input named 'extra' (the model's inputs: input)")


def test_without_output_file_the_outputs_are_printed(tmp_path):
    x = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    result = graph_opt_run(EXAMPLE, "-i", "x.npy", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (expected,) = run_function(api.load(EXAMPLE), [x])
    lines = result.stdout.decode().splitlines()
    assert lines[0] == "output: float32 (1, 8, 16, 16)"
    assert "..." in lines[1]  # numpy's summary of 2048 values
    assert "\n".join(lines[1:]) == np.array2string(expected)
    assert list(tmp_path.iterdir()) == [tmp_path / "x.npy"]
