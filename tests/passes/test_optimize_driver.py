"""OptimizePass's driver: the fixed point of every pass of PIPELINE, with the ops
the passes run one after another give."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce

from graph_opt import api
from graph_opt.entry import entry_function
from graph_opt.interpreter import run_function
from graph_opt.passes.optimize import (
    PIPELINE,
    OptimizePass,
    may_have_common_subexpressions,
    may_have_dead_code,
)
from graph_opt.testing import model_zoo

MODELS = model_zoo.small_models(chain_nodes=2000)

PATTERN_PASSES = PIPELINE[:4]
"""prune, fold-constants, fold-bn and fuse-ops; cse and dce are checked with xDSL's own."""


def optimize_sequentially(module: ModuleOp) -> None:
    """The passes of PIPELINE one after another until a round changes nothing."""
    for _ in range(8):
        if not any([run(module) for run in PIPELINE]):
            return
    raise AssertionError("no fixed point in 8 rounds")


def op_counts(module: ModuleOp) -> Counter[str]:
    return Counter(op.name for op in module.walk())


def assert_fixed_point(module: ModuleOp) -> None:
    """No pass of PIPELINE changes `module` (cse and dce run without prechecks)."""
    text = api.to_mlir(module, generic=True)
    for run in PATTERN_PASSES:
        assert not run(module), run.__name__
    cse(module)
    assert not region_dce(module.body)
    assert api.to_mlir(module, generic=True) == text


def optimized(module: ModuleOp) -> ModuleOp:
    OptimizePass().apply(Context(), module)
    return module


def inputs_for(module: ModuleOp, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal(arg.type.get_shape()).astype(np.float32)
        for arg in entry_function(module).args
    ]


@pytest.mark.parametrize("name", MODELS)
def test_optimize_reaches_the_fixed_point_of_every_pass(name):
    assert_fixed_point(optimized(api.load(MODELS[name]())))


@pytest.mark.parametrize("name", MODELS)
def test_optimize_leaves_the_ops_of_the_sequential_pipeline(name):
    model = MODELS[name]()
    sequential = api.load(model)
    optimize_sequentially(sequential)
    assert op_counts(optimized(api.load(model))) == op_counts(sequential)


MATMUL_BIAS_BN = """
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = nn.constant dense<[[1.0, -2.0, 0.5, 3.0], [0.25, 1.0, -1.0, 2.0], [2.0, 0.0, 1.5, -0.5]]> : tensor<3x4xf32>
  %b = nn.constant dense<[0.5, -1.0, 2.0, 0.25]> : tensor<4xf32>
  %gamma = nn.constant dense<[1.5, 0.5, -2.0, 1.0]> : tensor<4xf32>
  %beta = nn.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %mean = nn.constant dense<[1.0, -1.0, 0.5, 0.0]> : tensor<4xf32>
  %var = nn.constant dense<[0.5, 2.0, 1.0, 4.0]> : tensor<4xf32>
  %0 = nn.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nn.add %0, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = nn.batch_norm %1, %gamma, %beta, %mean, %var {epsilon = 1.0e-05 : f32} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %3 = nn.relu %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %3 : tensor<2x4xf32>
}
"""


def test_batch_norm_folds_before_its_matmul_is_fused():
    """A walk meets the add before the batch norm: fusing matmul + add there
    first would leave the batch norm, as fold-bn does not fold into nn.fused_matmul."""
    module = optimized(api.parse(MATMUL_BIAS_BN))
    sequential = api.parse(MATMUL_BIAS_BN)
    optimize_sequentially(sequential)
    counts = op_counts(module)
    assert counts == op_counts(sequential)
    assert counts["nn.batch_norm"] == 0 and counts["nn.fused_matmul"] == 1
    x = inputs_for(module)
    expected = run_function(api.parse(MATMUL_BIAS_BN), x)[0]
    np.testing.assert_allclose(run_function(module, x)[0], expected, rtol=1e-5)


DUPLICATE_AND_DEAD = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}
"""


def test_cse_precheck_finds_equal_ops_and_nothing_else():
    module = api.parse(DUPLICATE_AND_DEAD)
    assert may_have_common_subexpressions(module)
    cse(module)
    assert not may_have_common_subexpressions(module)
    assert op_counts(module)["nn.exp"] == 1


def test_cse_precheck_tells_constants_apart_by_their_bytes():
    two_constants = """
    func.func @main() -> (tensor<2xf32>, tensor<2xf32>) {
      %a = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %b = nn.constant dense<[1.0, 3.0]> : tensor<2xf32>
      func.return %a, %b : tensor<2xf32>, tensor<2xf32>
    }
    """
    assert not may_have_common_subexpressions(api.parse(two_constants))
    assert may_have_common_subexpressions(
        api.parse(two_constants.replace("3.0", "2.0"))
    )


def test_dce_precheck_finds_dead_ops():
    module = api.parse(DUPLICATE_AND_DEAD.replace("%0, %1", "%0, %0"))
    assert may_have_dead_code(module)
    assert region_dce(module.body)
    assert not may_have_dead_code(module)


def test_optimize_runs_cse_and_dce_to_the_fixed_point():
    module = optimized(api.parse(DUPLICATE_AND_DEAD))
    assert op_counts(module)["nn.exp"] == 1
    assert_fixed_point(module)
