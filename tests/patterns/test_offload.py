"""BYOC: partitions handed to a codegen callback or written as files; the host
plus the partitions, run apart, compute what the original did."""

import os
import subprocess

import numpy as np
import onnx
import onnxruntime
import pytest
from xdsl.dialects import func
from xdsl.utils.exceptions import InterpretationError

from graph_opt import api
from graph_opt.interpreter import run_function
from graph_opt.passes.partition_pattern import PartitionPatternPass
from graph_opt.patterns.library import conv_bias_relu
from graph_opt.patterns.offload import EXTERNAL_ATTR, offload, standalone_module

CHAIN = """func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %w = nn.constant dense<0.25> : tensor<4x3x3x3xf32>
  %b = nn.constant dense<-0.5> : tensor<4x1x1xf32>
  %w2 = nn.constant dense<0.125> : tensor<4x4x3x3xf32>
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %bias = nn.add %conv, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %relu = nn.relu %bias : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %conv2 = nn.conv %relu, %w2 : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %bias2 = nn.add %conv2, %b : (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
  func.return %bias2 : tensor<1x4x4x4xf32>
}"""
X = np.random.default_rng(3).standard_normal((1, 3, 8, 8)).astype(np.float32)


def reference() -> np.ndarray:
    return run_function(api.parse(CHAIN), [X])[0]


def declarations(module) -> dict[str, str]:
    """The body-less functions and where their bodies went."""
    return {
        op.sym_name.data: op.attributes[EXTERNAL_ATTR].data
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.is_declaration
    }


def interpreted(module):
    """A runner of a module's only public function (our stand-in compiler)."""
    return lambda *args: run_function(module, list(args))


def test_codegen_takes_each_partition():
    module = api.parse(CHAIN)
    seen = []

    def mycc(function):
        seen.append([op.name for op in function.body.block.ops])
        return interpreted(standalone_module(function))

    artifacts = offload(module, conv_bias_relu(), mycc, {"composite": "cbr"})
    module.verify()
    assert seen == [
        ["nn.conv", "nn.add", "nn.relu", "func.return"],
        ["nn.conv", "nn.add", "func.return"],
    ]
    assert declarations(module) == {"cbr_0": "mycc", "cbr_1": "mycc"}
    result = run_function(module, [X], "main", externals=artifacts)[0]
    np.testing.assert_array_equal(result, reference())


def test_codegen_declines_a_partition():
    """A partition the codegen returns None for keeps its body in the host."""
    module = api.parse(CHAIN)

    def first_only(function):
        if function.sym_name.data == "cbr_0":
            return interpreted(standalone_module(function))
        return None

    artifacts = offload(module, conv_bias_relu(), first_only, {"composite": "cbr"})
    assert list(artifacts) == ["cbr_0"]
    assert declarations(module) == {"cbr_0": "first_only"}
    result = run_function(module, [X], "main", externals=artifacts)[0]
    np.testing.assert_array_equal(result, reference())


def test_no_host_run_without_the_partitions():
    module = api.parse(CHAIN)
    offload(module, conv_bias_relu(), lambda f: "compiled", {"composite": "cbr"})
    with pytest.raises(InterpretationError, match="cbr_0"):
        run_function(module, [X], "main")


@pytest.mark.parametrize("embed_constants", [False, True])
def test_onnx_partitions_load_and_run_on_onnxruntime(tmp_path, embed_constants):
    module = api.parse(CHAIN)
    api.run(
        module,
        [
            PartitionPatternPass(
                "conv-bias-relu",
                embed_constants=embed_constants,
                emit_dir=str(tmp_path),
                format="onnx",
            )
        ],
    )
    files = declarations(module)
    assert files == {
        "conv_bias_relu_0": "conv_bias_relu_0.onnx",
        "conv_bias_relu_1": "conv_bias_relu_1.onnx",
    }
    runners = {}
    for name, file_name in files.items():
        model = onnx.load(tmp_path / file_name)
        onnx.checker.check_model(model, full_check=True)
        session = onnxruntime.InferenceSession(
            str(tmp_path / file_name), providers=["CPUExecutionProvider"]
        )
        names = [i.name for i in session.get_inputs()]
        runners[name] = lambda *a, s=session, n=names: s.run(None, dict(zip(n, a)))
    result = run_function(module, [X], "main", externals=runners)[0]
    np.testing.assert_allclose(result, reference(), rtol=1e-5, atol=1e-6)


def test_mlir_partitions_parse_and_run(tmp_path):
    module = api.parse(CHAIN)
    api.run(module, [PartitionPatternPass("conv-bias-relu", emit_dir=str(tmp_path))])
    runners = {
        name: interpreted(api.load(tmp_path / file_name))
        for name, file_name in declarations(module).items()
    }
    assert len(runners) == 2
    result = run_function(module, [X], "main", externals=runners)[0]
    np.testing.assert_array_equal(result, reference())


def graph_opt_tool(tool: str, *args, cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GRAPH_OPT_TRACEBACK"}
    return subprocess.run(
        [tool, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True
    )


@pytest.mark.parametrize("file_format", ["mlir", "onnx"])
def test_graph_opt_run_runs_the_host_with_its_partition_files(tmp_path, file_format):
    (tmp_path / "model.mlir").write_text(CHAIN)
    np.savez(tmp_path / "in.npz", input_0=X)
    spec = f"partition-pattern{{pattern=conv-bias-relu emit-dir=parts format={file_format}}}"
    made = graph_opt_tool(
        "graph-opt", "model.mlir", "-p", spec, "-o", "host.mlir", cwd=tmp_path
    )
    assert made.returncode == 0, made.stderr
    ran = graph_opt_tool(
        "graph-opt-run", "host.mlir", "-i", "in.npz", "--partitions", "parts",
        "-o", "out.npz", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    np.testing.assert_allclose(
        np.load(tmp_path / "out.npz")["output_0"], reference(), rtol=1e-6, atol=1e-6
    )


def test_graph_opt_run_names_a_missing_partition_file(tmp_path):
    module = api.parse(CHAIN)
    api.run(module, [PartitionPatternPass("conv-bias-relu", emit_dir=str(tmp_path))])
    (tmp_path / "host.mlir").write_text(api.to_mlir(module))
    (tmp_path / "conv_bias_relu_1.mlir").unlink()
    np.savez(tmp_path / "in.npz", input_0=X)
    ran = graph_opt_tool(
        "graph-opt-run", "host.mlir", "-i", "in.npz", "--partitions", ".", cwd=tmp_path
    )
    assert ran.returncode == 1
    (line,) = ran.stderr.splitlines()
    assert "@conv_bias_relu_1: no partition file conv_bias_relu_1.mlir" in line, line
