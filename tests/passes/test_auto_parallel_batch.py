"""auto-parallel{replicas=N} on inference graphs: the batch split into N
slices, each replica's results concatenated, computes exactly what the
original graph did (interpreter, random inputs); graphs that mix samples
along the batch are left as they are, with a warning saying why."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from graph_opt import api
from graph_opt.interpreter import run_function
from graph_opt.remarks import GraphOptWarning
from graph_opt.testing.model_zoo import small_models, unet

FILECHECK = Path(__file__).parents[1] / "filecheck" / "passes"

MLP = """
func.func @mlp(%x: tensor<6x5xf32>) -> (tensor<6x3xf32>, tensor<6xi64>) {
  %w = nn.constant dense<[[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75],
                          [0.1, 0.2, 0.3], [1.0, -1.0, 1.0]]> : tensor<5x3xf32>
  %mm = nn.matmul %x, %w : (tensor<6x5xf32>, tensor<5x3xf32>) -> tensor<6x3xf32>
  %b = nn.constant dense<[0.5, -0.5, 1.0]> : tensor<3xf32>
  %add = nn.add %mm, %b : (tensor<6x3xf32>, tensor<3xf32>) -> tensor<6x3xf32>
  %t = nn.tanh %add : (tensor<6x3xf32>) -> tensor<6x3xf32>
  %arg = nn.argmax %t {axis = 1 : i64, keepdims = 0 : i64} : (tensor<6x3xf32>) -> tensor<6xi64>
  func.return %t, %arg : tensor<6x3xf32>, tensor<6xi64>
}
"""


def split_input_cases(path: Path) -> list[str]:
    return path.read_text().split("// -----")


def model_zoo_with_batch(name: str, batch: int) -> onnx.ModelProto:
    model = {**small_models(chain_nodes=12), "unet": unet}[name]()
    for value in (*model.graph.input, *model.graph.output):
        value.type.tensor_type.shape.dim[0].dim_value = batch
    return model


def assert_split_computes_the_same(module, replicas: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    function = module.body.block.first_op
    inputs = [
        rng.standard_normal(t.get_shape()).astype(np.float32)
        for t in function.function_type.inputs.data
    ]
    before = run_function(module, inputs)
    statistics: list = []
    split = api.run(
        module.clone(), f"auto-parallel{{replicas={replicas}}}", statistics=statistics
    )
    after = run_function(split, inputs)
    assert len(after) == len(before)
    for a, b in zip(after, before):
        if np.issubdtype(b.dtype, np.floating):
            # BLAS blocks a 2-row gemm differently from a 4-row one: last-bit changes
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(a, b)
    (stats,) = statistics
    assert stats.counters["replicas"] == replicas
    return split, stats


@pytest.mark.parametrize(
    "case, ops",
    [(0, 5), (1, 3), (6, 2)],
    ids=["small_cnn", "reshape_softmax", "concat_channels"],
)
def test_filecheck_graphs_compute_the_same(case, ops):
    text = split_input_cases(FILECHECK / "auto-parallel-batch.mlir")[case]
    split, stats = assert_split_computes_the_same(api.parse(text), 2)
    assert stats.counters["replicated-ops"] == ops
    names = [op.name for op in split.walk()]
    assert names.count("nn.split") == 1
    assert names.count("nn.concat") == 1 + 2 * (case == 6)


def test_mlp_with_two_results_in_three_replicas():
    split, stats = assert_split_computes_the_same(api.parse(MLP), 3)
    assert stats.counters["replicated-ops"] == 4
    assert [op.name for op in split.walk()].count("nn.concat") == 2


@pytest.mark.parametrize("name", ["resnet", "mobilenet_v2", "conv_chain", "unet"])
def test_model_zoo_cnn_with_batch_4(name):
    module = api.load(model_zoo_with_batch(name, 4))
    split, stats = assert_split_computes_the_same(module, 2)
    convs = [op for op in split.walk() if op.name == "nn.conv"]
    original = [op for op in module.walk() if op.name == "nn.conv"]
    assert len(convs) == 2 * len(original)
    assert all(op.results[0].type.get_shape()[0] == 2 for op in convs)


def test_op_outside_the_allow_list_is_refused():
    """nn.shape reads the whole batch: not known to keep samples apart."""
    module = api.parse(
        "func.func @f(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<2xi64>) {\n"
        "  %r = nn.relu %x : (tensor<4x6xf32>) -> tensor<4x6xf32>\n"
        "  %s = nn.shape %r : (tensor<4x6xf32>) -> tensor<2xi64>\n"
        "  func.return %r, %s : tensor<4x6xf32>, tensor<2xi64>\n"
        "}"
    )
    before = str(module)
    with pytest.warns(
        GraphOptWarning, match="nn.shape 's' is not known to keep samples apart"
    ):
        split = api.run(module, "auto-parallel{replicas=2}")
    assert str(split) == before


@pytest.mark.parametrize(
    "case, reason",
    [
        (2, "nn.reduce_mean 'mean' works across the batch axis 0"),
        (3, "batch 3 is not divisible by 2 replicas"),
        (4, "nn.mul 'scaled' has a batch-sized operand that is not split"),
        (5, r"arguments differ in dim 0 \[2, 4\]"),
        (7, "nn.concat 'joined' joins along the batch axis 0"),
        (8, "scf.if 'r' has regions"),
    ],
)
def test_refusals_leave_the_graph_and_say_why(case, reason):
    text = split_input_cases(FILECHECK / "auto-parallel-batch.mlir")[case]
    module = api.parse(text)
    before = str(module)
    with pytest.warns(GraphOptWarning, match=reason):
        split = api.run(module, "auto-parallel{replicas=2}")
    assert str(split) == before


def test_one_replica_leaves_the_batch_whole():
    text = split_input_cases(FILECHECK / "auto-parallel-batch.mlir")[0]
    with pytest.warns(GraphOptWarning, match="replicas=1 leaves the batch whole"):
        api.run(api.parse(text), "auto-parallel{replicas=1}")
