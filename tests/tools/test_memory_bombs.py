"""Tiny files that describe huge tensors: the 256 MiB tensor limit holds on every
path, checked before allocation. Each command runs in a child process capped at
2 GiB of address space (so the old behaviour fails here instead of exhausting the
machine); its own peak RSS is measured, and the answer is a small correct output
or a one-line error."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from bench.peak_rss import REPORTING_CHILD

PEAK_MB = 400
HUGE = "30000x30000"  # 3.4 GB of f32


def graph_opt(tool: str, *args, tmp_path: Path) -> tuple[int, str, float]:
    """Run `tool` (graph-opt or graph-opt-run): exit code, stderr, peak RSS in MB
    (stdout in `tmp_path / "stdout"`)."""
    report = tmp_path / "peak"
    module = {"graph-opt": "graph_opt", "graph-opt-run": "graph_opt.tools.run_main"}
    code = (
        "import sys; from graph_opt.tools.run_main import main; sys.exit(main())"
        if tool == "graph-opt-run"
        else None
    )
    kind = ["-c", code] if code else ["-m", module[tool]]
    done = subprocess.run(
        [sys.executable, "-c", REPORTING_CHILD, str(report), *kind, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)),
    )
    (tmp_path / "stdout").write_text(done.stdout)
    return done.returncode, done.stderr, int(report.read_text()) / 1024


def assert_one_line_refusal(result, *expected: str) -> None:
    code, stderr, peak = result
    assert code == 1, stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    for text in expected:
        assert text in stderr, stderr
    assert peak < PEAK_MB


def tf_const(values: str) -> str:
    dims = " ".join(f"dim {{ size: {d} }}" for d in HUGE.split("x"))
    return (
        'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } '
        'attr { key: "value" value { tensor { dtype: DT_FLOAT '
        f"tensor_shape {{ {dims} }} {values} }} }} }} }}\n"
    )


@pytest.mark.parametrize("target", ["mlir", "onnx", "graphdef"])
def test_a_tensorflow_splat_stays_one_value(tmp_path: Path, target: str):
    source = tmp_path / "splat.pbtxt"
    source.write_text(tf_const("float_val: 1.5"))
    out = tmp_path / f"out.{'pbtxt' if target == 'graphdef' else target}"
    code, stderr, peak = graph_opt(
        "graph-opt", source, "-t", target, "-o", out, tmp_path=tmp_path
    )
    assert code == 0, stderr
    assert out.stat().st_size < 2000 and peak < PEAK_MB
    code, stderr, peak = graph_opt("graph-opt", out, tmp_path=tmp_path)
    assert code == 0 and peak < PEAK_MB, stderr
    text = (tmp_path / "stdout").read_text()
    if target == "onnx":  # ONNX has no splat initializer
        assert "nn.constant_of_shape %shape {value = dense<1.500000e+00>" in text
        assert f"-> tensor<{HUGE}xf32>" in text
    else:
        assert f"dense<1.500000e+00> : tensor<{HUGE}xf32>" in text


def test_a_short_tensorflow_value_list_past_the_limit_is_refused(tmp_path: Path):
    source = tmp_path / "list.pbtxt"
    source.write_text(tf_const("float_val: 1.0 float_val: 2.0"))
    result = graph_opt("graph-opt", source, tmp_path=tmp_path)
    assert_one_line_refusal(result, "node 'c'", "above the limit", "--max-tensor-size")


@pytest.mark.parametrize("literal", ["1.0", '"0x0000C03F"'])
@pytest.mark.parametrize("element", ["f32", "i32"])
def test_an_mlir_splat_is_printed_without_expanding_it(
    tmp_path: Path, literal: str, element: str
):
    if element == "i32":
        literal = "7" if literal == "1.0" else literal
    value_type = f"tensor<{HUGE}x{element}>"
    source = tmp_path / "splat.mlir"
    source.write_text(
        f"func.func @f() -> {value_type} {{\n"
        f"  %0 = nn.constant dense<{literal}> : {value_type}\n"
        f"  func.return %0 : {value_type}\n}}\n"
    )
    out = tmp_path / "out.mlir"
    code, stderr, peak = graph_opt(
        "graph-opt", source, "-p", "optimize", "-o", out, tmp_path=tmp_path
    )
    assert code == 0, stderr
    assert out.stat().st_size < 1000 and peak < PEAK_MB
    assert f"> : {value_type}" in out.read_text()


def test_a_splat_xdsl_reads_stays_one_value(tmp_path: Path):
    """Dense literals outside nn.constant are read by xDSL's parser, which
    expanded splats through a Python list (5 GB for 250 MiB): kept as one value,
    they print back as written; exporting the attribute is refused in one line."""
    source = tmp_path / "attr.mlir"
    source.write_text(
        "func.func @f() -> tensor<1xf32> {\n"
        '  %0 = nn.opaque {op_type = "Constant", attrs = {value = dense<"0x0000C03F"> : '
        f"tensor<{HUGE}xf32>}}}} : () -> tensor<1xf32>\n"
        "  %1 = arith.constant dense<-3> : tensor<8192x8000xi32>\n"
        "  func.return %0 : tensor<1xf32>\n}\n"
    )
    code, stderr, peak = graph_opt("graph-opt", source, tmp_path=tmp_path)
    assert code == 0 and peak < PEAK_MB, stderr
    text = (tmp_path / "stdout").read_text()
    assert f"value = dense<1.500000e+00> : tensor<{HUGE}xf32>" in text
    assert "arith.constant dense<-3> : tensor<8192x8000xi32>" in text
    out = tmp_path / "out.onnx"
    result = graph_opt("graph-opt", source, "-t", "onnx", "-o", out, tmp_path=tmp_path)
    assert_one_line_refusal(
        result, "a tensor attribute would create", "--max-tensor-size"
    )


def outer_product_model(op_type: str) -> onnx.ModelProto:
    """y = x[:, None] * x[None, :] (or MatMul): 263 bytes, n² elements."""
    axes = [helper.make_tensor(f"a{i}", TensorProto.INT64, [1], [i]) for i in (0, 1)]
    graph = helper.make_graph(
        [
            helper.make_node("Unsqueeze", ["x", "a1"], ["col"]),
            helper.make_node("Unsqueeze", ["x", "a0"], ["row"]),
            helper.make_node(op_type, ["col", "row"], ["y"]),
        ],
        "outer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        axes,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("op_type", ["Mul", "MatMul"])
def test_a_result_known_only_at_run_time_is_checked_before_allocation(
    tmp_path: Path, op_type: str
):
    onnx.save(outer_product_model(op_type), tmp_path / "outer.onnx")
    np.save(tmp_path / "x.npy", np.ones(20000, np.float32))
    result = graph_opt(
        "graph-opt-run", tmp_path / "outer.onnx", "-i", tmp_path / "x.npy",
        "-o", tmp_path / "y.npz", tmp_path=tmp_path,
    )  # fmt: skip
    assert_one_line_refusal(result, f"nn.{op_type.lower()} would create a tensor")
    np.save(tmp_path / "x.npy", np.arange(3, dtype=np.float32))
    code, stderr, _ = graph_opt(
        "graph-opt-run", tmp_path / "outer.onnx", "-i", tmp_path / "x.npy",
        "-o", tmp_path / "y.npz", tmp_path=tmp_path,
    )  # fmt: skip
    assert code == 0, stderr
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npz")["y"], np.outer(x, x))


def constant_of_shape(tmp_path: Path, dims: str) -> Path:
    source = tmp_path / "cos.mlir"
    source.write_text(
        "func.func @main() -> tensor<1xf32> {\n"
        f"  %s = nn.constant dense<[{dims}]> : tensor<2xi64>\n"
        '  %0 = nn.opaque %s {op_type = "ConstantOfShape"} : (tensor<2xi64>) -> tensor<1xf32>\n'
        "  func.return %0 : tensor<1xf32>\n}\n"
    )
    return source


def test_an_opaque_op_is_checked_whatever_type_it_declares(tmp_path: Path):
    source = constant_of_shape(tmp_path, "20000, 20000")
    run = ("graph-opt-run", source, "-o", tmp_path / "y.npz")
    result = graph_opt(*run, tmp_path=tmp_path)
    assert_one_line_refusal(
        result, "ConstantOfShape would create a tensor of 1,525.9 MiB"
    )
    code, stderr, peak = graph_opt(
        "graph-opt", source, "-p", "fold-constants", tmp_path=tmp_path
    )
    assert code == 0 and "left unfolded for size" in stderr and peak < PEAK_MB


def test_an_opaque_result_contradicting_its_type_is_refused(tmp_path: Path):
    source = constant_of_shape(tmp_path, "2, 3")
    result = graph_opt(
        "graph-opt-run", source, "-o", tmp_path / "y.npz", tmp_path=tmp_path
    )
    assert_one_line_refusal(
        result, "ConstantOfShape gave result 0 the shape [2, 3], not the tensor<1xf32>"
    )
