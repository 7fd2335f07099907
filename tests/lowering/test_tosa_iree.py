"""lower-to-tosa checked by upstream MLIR: the generic print parses and verifies in
MLIR's own context, compiles with IREE for CPU, and runs to the reference interpreter's results."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from iree.compiler import ir
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr

from graph_opt import api
from graph_opt.formats.onnx.importer import import_model
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.saved_model import import_saved_model
from graph_opt.interpreter import run_function
from graph_opt.lowering.to_tosa import LowerToTosaPass
from graph_opt.passes.optimize import OptimizePass
from graph_opt.testing import model_zoo

sys.path.insert(0, str(Path(__file__).parent))
from iree_harness import CompiledGraphs, generic_text  # noqa: E402
from tosa_graphs import FLOAT_GRAPHS, INT8_GRAPHS  # noqa: E402


def zoo_functions() -> list[func.FuncOp]:
    """Optimized model-zoo networks (a MobileNetV2 and a BERT encoder), one function each."""
    functions = []
    for name, model in (
        (
            "mobilenet_v2",
            model_zoo.mobilenet_v2(width=8, size=16, classes=10, expansions=3),
        ),
        ("bert_encoder", model_zoo.bert_encoder(layers=1, hidden=16, heads=2, seq=4)),
    ):
        module = import_model(model)
        OptimizePass().apply(api.context(), module)
        (function,) = module.ops
        function.sym_name = StringAttr(name)  # type: ignore[attr-defined]
        function.detach()
        functions.append(function)
    return functions


@pytest.fixture(scope="module")
def compiled() -> CompiledGraphs:
    """Every test graph in one module: one IREE compilation for the whole file."""
    graphs = api.parse("\n".join([*FLOAT_GRAPHS.values(), *INT8_GRAPHS.values()]))
    functions = [op.clone() for op in graphs.ops] + zoo_functions()
    return CompiledGraphs(ModuleOp(functions))


@pytest.fixture(scope="module")
def compiled_with_resources() -> CompiledGraphs:
    return CompiledGraphs(ModuleOp(zoo_functions()), resources=0)


@pytest.mark.parametrize("name", ["mobilenet_v2", "bert_encoder"])
def test_weights_as_resources_run_on_iree_like_the_interpreter(
    compiled_with_resources, name
):
    """The lowered zoo networks printed with --weights-as-resources' form:
    upstream MLIR reads the blobs (checked by the numbers IREE computes)."""
    assert compiled_with_resources.tosa_text.count("dense_resource<") > 10
    with ir.Context():
        assert ir.Module.parse(compiled_with_resources.tosa_text).operation.verify()
    check_float_graph(compiled_with_resources, name)


def test_upstream_mlir_parses_and_verifies_the_lowering(compiled):
    with ir.Context():
        module = ir.Module.parse(compiled.tosa_text)
        assert module.operation.verify()
        names = {op.operation.name for op in walk_ops(module.operation)}
    assert not any(n.startswith("nn.") for n in names)
    expected = {"tosa.conv2d", "tosa.depthwise_conv2d", "tosa.matmul", "tosa.rescale"}
    assert expected <= names


def walk_ops(operation):
    for region in operation.regions:
        for block in region.blocks:
            for op in block.operations:
                yield op
                yield from walk_ops(op.operation)


def check_float_graph(compiled: CompiledGraphs, name: str) -> None:
    rng = np.random.default_rng(0)
    inputs = compiled.inputs(name, rng)
    expected = run_function(compiled.module, inputs, function=name)
    actual = compiled.run(name, inputs)
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(FLOAT_GRAPHS))
def test_float_graph_runs_on_iree_like_the_interpreter(compiled, name):
    check_float_graph(compiled, name)


@pytest.mark.parametrize("name", ["mobilenet_v2", "bert_encoder"])
def test_model_zoo_network_runs_on_iree_like_the_interpreter(compiled, name):
    check_float_graph(compiled, name)


@pytest.mark.parametrize("name", sorted(INT8_GRAPHS))
def test_int8_graph_runs_on_iree_bit_exact(compiled, name):
    rng = np.random.default_rng(1)
    inputs = compiled.inputs(name, rng)
    expected = run_function(compiled.module, inputs, function=name)
    actual = compiled.run(name, inputs)
    for got, want in zip(actual, expected):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


TF_CORPUS = Path(__file__).parents[1] / "formats" / "tensorflow" / "corpus"


@pytest.mark.parametrize("model", ["qat_conv_bn"])
def test_tensorflow_model_runs_on_iree_like_the_interpreter(model):
    """qat_conv_bn keeps FakeQuant ops (control flow: test_tosa_control_flow_iree.py)."""
    data = np.load(TF_CORPUS / f"{model}.npz")
    feeds = {k.removeprefix("in:"): data[k] for k in data.files if k.startswith("in:")}
    outputs = [str(name) for name in data["outputs"]]
    graph = load_graph_def(str(TF_CORPUS / f"{model}.pb"))
    module = import_graph_def(graph, outputs=outputs)
    OptimizePass().apply(api.context(), module)
    (function,) = module.ops
    names = [
        attrs.data["nn.name"].data  # type: ignore[attr-defined]
        for attrs in function.arg_attrs.data  # type: ignore[attr-defined]
    ]
    inputs = [feeds[name] for name in names]
    expected = run_function(module, inputs)
    actual = CompiledGraphs(module).run(function.sym_name.data, inputs)  # type: ignore[attr-defined]
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


FILECHECK_DIR = Path(__file__).parents[1] / "filecheck" / "lowering"


def positive_filecheck_cases() -> list[tuple[str, str]]:
    cases = []
    for path in sorted(FILECHECK_DIR.glob("*.mlir")):
        if "-p lower-to-tosa" not in path.read_text().splitlines()[0]:
            continue
        for index, chunk in enumerate(path.read_text().split("// -----")):
            if "func.func @" in chunk and "@negative_" not in chunk:
                cases.append((f"{path.stem}-{index}", chunk))
    return cases


@pytest.mark.parametrize(
    "chunk",
    [c for _, c in positive_filecheck_cases()],
    ids=[n for n, _ in positive_filecheck_cases()],
)
def test_filecheck_case_lowers_to_ir_upstream_mlir_verifies(chunk):
    module = api.parse(chunk)
    LowerToTosaPass().apply(api.context(), module)
    with ir.Context():
        assert ir.Module.parse(generic_text(module)).operation.verify()


def test_converted_qat_model_runs_on_iree_bit_exact():
    """The tfmot QAT model after convert-to-int (int8 convs, mean and dense)
    lowered to TOSA: IREE's outputs are the interpreter's bit for bit."""
    module = api.run(
        import_saved_model(TF_CORPUS / "qat_conv_bn_saved_model"),
        "optimize,quantize,convert-to-int",
    )
    assert "nn.reduce_sum" in {op.name for op in module.walk()}
    compiled = CompiledGraphs(module)
    (function,) = module.ops
    name = function.sym_name.data  # type: ignore[attr-defined]
    rng = np.random.default_rng(3)
    for _ in range(4):
        inputs = compiled.inputs(name, rng)
        np.testing.assert_array_equal(
            compiled.run(name, inputs)[0], run_function(module, inputs)[0]
        )


POOLS_FAKE_QUANT = """
func.func @pools(%x: tensor<1x3x7x7xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>) {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<1x3x7x7xf32>) -> tensor<1x3x7x7xf32>
  %1 = nn.avg_pool %0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %2 = nn.fake_quant %1 {min = array<f32: -0.7>, max = array<f32: 1.3>, num_bits = 8 : i64} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %3 = nn.global_avg_pool %0 : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  %4 = nn.fake_quant %3 {min = array<f32: -0.4>, max = array<f32: 0.9>, num_bits = 8 : i64} : (tensor<1x3x1x1xf32>) -> tensor<1x3x1x1xf32>
  func.return %2, %4 : tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>
}"""


def test_converted_pools_run_on_iree_bit_exact():
    """convert-to-int's nn.qavg_pool + rescale and its i32-sum mean, lowered:
    IREE's outputs are the interpreter's bit for bit."""
    module = api.run(api.parse(POOLS_FAKE_QUANT), "convert-to-int")
    names = {op.name for op in module.walk()}
    assert {"nn.qavg_pool", "nn.reduce_sum"} <= names
    compiled = CompiledGraphs(module)
    rng = np.random.default_rng(4)
    for _ in range(4):
        inputs = [rng.uniform(-1.2, 2.2, (1, 3, 7, 7)).astype(np.float32)]
        for got, want in zip(
            compiled.run("pools", inputs), run_function(module, inputs)
        ):
            np.testing.assert_array_equal(got, want)
