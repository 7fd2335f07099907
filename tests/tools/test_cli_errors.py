"""Every failure of `graph-opt` is one line on stderr, exit code 1, and no partial output."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

EXAMPLE = Path(__file__).parents[2] / "examples" / "conv_bn_relu.onnx"
GRAPH_OPT = shutil.which("graph-opt") or "graph-opt"


def graph_opt(*args, cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GRAPH_OPT_TRACEBACK"}
    return subprocess.run(
        [GRAPH_OPT, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env
    )


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str):
    assert result.returncode == 1, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "error" in lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


MALFORMED = "func.func @f(%a: tensor<2xf32> {\n"
WRONG_ARITY = """func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = nn.add %a : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""
WRONG_SHAPES = """func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = nn.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""
WRONG_OPERAND_TYPE = """func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = nn.relu %a : (tensor<3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""
WRONG_RESULT_TYPE = """func.func @f(%a: tensor<2xf32>) -> tensor<4xf32> {
  %0 = nn.relu %a : (tensor<2xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
"""


@pytest.mark.parametrize(
    "text, fragments",
    [
        (MALFORMED, ["bad.mlir:2:1"]),
        (WRONG_ARITY, ["bad.mlir:2", "operands"]),
        (WRONG_OPERAND_TYPE, ["bad.mlir:2:16", "tensor<3xf32>"]),
        (WRONG_SHAPES, ["bad.mlir", "broadcast"]),
        (WRONG_RESULT_TYPE, ["bad.mlir", "tensor<4xf32>"]),
    ],
    ids=["malformed", "arity", "operand-type", "shapes", "result-type"],
)
def test_invalid_mlir(tmp_path, text, fragments):
    (tmp_path / "bad.mlir").write_text(text)
    assert_one_line_error(graph_opt("bad.mlir", cwd=tmp_path), *fragments)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty"])
def test_corrupt_onnx(tmp_path, damage):
    data = EXAMPLE.read_bytes()
    bad = {
        "truncated": data[: len(data) // 2],
        "garbage": bytes(range(256)) * 2,
        "empty": b"",
    }[damage]
    (tmp_path / "bad.onnx").write_bytes(bad)
    assert_one_line_error(graph_opt("bad.onnx", cwd=tmp_path), "bad.onnx")


def test_missing_input_file(tmp_path):
    for name in ("missing.onnx", "missing.mlir"):
        assert_one_line_error(graph_opt(name, cwd=tmp_path), name)


def test_onnx_target_needs_an_output_file(tmp_path):
    assert_one_line_error(graph_opt(EXAMPLE, "-t", "onnx", cwd=tmp_path), "-o")


def _only(tmp_path, *names):
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


@pytest.mark.parametrize("target", ["onnx", "mlir"])
def test_failed_run_leaves_no_output_file(tmp_path, target):
    """The pass pipeline fails after the output was opened: nothing stays behind."""
    (tmp_path / "bad.mlir").write_text(WRONG_SHAPES)
    result = graph_opt("bad.mlir", "-t", target, "-o", "out", cwd=tmp_path)
    assert_one_line_error(result)
    _only(tmp_path, "bad.mlir")


def test_failed_export_leaves_no_output_file(tmp_path):
    (tmp_path / "in.mlir").write_text(
        """func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "test.op"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""
    )
    result = graph_opt(
        "in.mlir",
        "--allow-unregistered-dialect",
        "-t",
        "onnx",
        "-o",
        "out",
        cwd=tmp_path,
    )
    assert_one_line_error(result, "test.op")
    _only(tmp_path, "in.mlir")


def test_failed_run_keeps_an_existing_output_file(tmp_path):
    (tmp_path / "bad.mlir").write_text(WRONG_SHAPES)
    (tmp_path / "out").write_text("previous")
    assert_one_line_error(graph_opt("bad.mlir", "-o", "out", cwd=tmp_path))
    assert (tmp_path / "out").read_text() == "previous"
    _only(tmp_path, "bad.mlir", "out")


def test_successful_run_writes_the_output_file(tmp_path):
    result = graph_opt(EXAMPLE, "-t", "onnx", "-o", "out.onnx", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    onnx.checker.check_model(onnx.load(tmp_path / "out.onnx"))
    _only(tmp_path, "out.onnx")


def test_no_opaque_lists_every_unsupported_operator(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    nodes = [
        helper.make_node("Foo", ["x"], ["a"], domain="com.example"),
        helper.make_node("Foo", ["a"], ["b"], domain="com.example"),
        helper.make_node("Relu", ["b"], ["c"]),
        helper.make_node("Bar", ["c"], ["y"], domain="com.example"),
    ]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    model = helper.make_model(
        helper.make_graph(nodes, "g", [x], [y]),
        opset_imports=[
            helper.make_opsetid("", 18),
            helper.make_opsetid("com.example", 1),
        ],
    )
    onnx.save(model, tmp_path / "custom.onnx")
    line = assert_one_line_error(graph_opt("custom.onnx", "--no-opaque", cwd=tmp_path))
    assert "com.example.Foo (2)" in line and "com.example.Bar (1)" in line
    assert "Relu" not in line
    assert graph_opt("custom.onnx", cwd=tmp_path).returncode == 0


def test_traceback_only_on_request(tmp_path):
    (tmp_path / "bad.mlir").write_text(WRONG_SHAPES)
    env = {**os.environ, "GRAPH_OPT_TRACEBACK": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "graph_opt.tools.graph_opt_main", "bad.mlir"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode != 0 and "Traceback" in result.stderr


def test_a_reader_that_stops_early_ends_the_run_quietly(tmp_path):
    """`graph-opt m.onnx | head -1`: no error line, the exit status of a tool
    that SIGPIPE ended (128 + 13). The text (1 MB of weights) outgrows the pipe."""
    weight = helper.make_tensor(
        "w",
        TensorProto.FLOAT,
        [512, 512],
        np.ones(512 * 512, np.float32).tobytes(),
        raw=True,
    )
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "big",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 512])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 512])], [weight],
    )  # fmt: skip
    model = tmp_path / "big.onnx"
    onnx.save(helper.make_model(graph), model)
    run = subprocess.Popen(
        [sys.executable, "-m", "graph_opt", str(model)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    run.stdout.readline()
    run.stdout.close()
    stderr = run.stderr.read().decode()
    assert run.wait() == 141 and stderr == ""


def test_exporting_convert_to_int_output_writes_qdq(tmp_path):
    """convert-to-int's int8 graph exports in the QDQ format (it was refused)."""
    samples = tmp_path / "samples.npz"
    rng = np.random.default_rng(0)
    np.savez(samples, input=rng.standard_normal((1, 3, 16, 16)).astype(np.float32))
    pipeline = f'calibrate{{inputs="{samples}"}},quantize,convert-to-int'
    result = graph_opt(EXAMPLE, "-p", pipeline, "-o", "out.onnx", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    nodes = [n.op_type for n in onnx.load(tmp_path / "out.onnx").graph.node]
    assert nodes[0] == "QuantizeLinear" and "Conv" in nodes
