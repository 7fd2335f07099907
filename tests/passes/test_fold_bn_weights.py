"""fold-bn's weights: updated in place when only the folded op reads them, a freed
batch norm constant reused for a new bias, shared constants never changed."""

from __future__ import annotations

import numpy as np
from xdsl.context import Context

from graph_opt import api
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.entry import entry_function
from graph_opt.interpreter import run_function
from graph_opt.passes.fold_bn.fold_bn import FoldBatchNormPass

CONV_BN = """
func.func @main(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = nn.constant dense<[[[[1.0]], [[-2.0]]], [[[0.5]], [[3.0]]]]> : tensor<2x2x1x1xf32>
  %gamma = nn.constant dense<[1.5, -0.5]> : tensor<2xf32>
  %beta = nn.constant dense<[0.25, 2.0]> : tensor<2xf32>
  %mean = nn.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %var = nn.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %y = nn.conv %x, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %z = nn.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = 1.0e-05 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  func.return %z : tensor<1x2x3x3xf32>
}
"""


def fold(text: str):
    module = api.parse(text)
    FoldBatchNormPass().apply(Context(), module)
    module.verify()
    return module


def constants(module) -> dict[str | None, ConstantOp]:
    return {
        op.output.name_hint: op
        for op in entry_function(module).body.ops
        if isinstance(op, ConstantOp)
    }


def check_same_results(text: str, module, shape=(1, 2, 3, 3)) -> None:
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    expected = run_function(api.parse(text), [x])
    for e, a in zip(expected, run_function(module, [x])):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5)


def test_fold_updates_the_filter_and_reuses_a_batch_norm_constant_for_the_bias():
    module = fold(CONV_BN)
    # the batch norm's four constants were erased but one, which holds the bias
    assert set(constants(module)) == {"w_bn_folded", "w_bn_bias"}
    conv = next(op for op in entry_function(module).body.ops if op.name == "nn.conv")
    assert [v.name_hint for v in conv.operands[1:]] == ["w_bn_folded", "w_bn_bias"]
    assert conv.operands[2].owner.next_op is conv  # moved before its reader
    check_same_results(CONV_BN, module)


def test_constants_read_elsewhere_are_neither_changed_nor_reused():
    shared = CONV_BN.replace(
        "-> tensor<1x2x3x3xf32> {",
        "-> (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2x2x1x1xf32>) {",
    ).replace(
        "func.return %z : tensor<1x2x3x3xf32>",
        "func.return %z, %beta, %w : tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2x2x1x1xf32>",
    )
    before = {
        n: constant_value(c.output).copy()
        for n, c in constants(api.parse(shared)).items()
    }
    module = fold(shared)
    kept = constants(module)
    assert {"w", "beta", "w_bn_folded", "w_bn_bias"} == set(kept)
    for name in ("w", "beta"):
        np.testing.assert_array_equal(constant_value(kept[name].output), before[name])
    check_same_results(shared, module)


NHWC_CONV_MUL_ADD = """
func.func @main(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = nn.constant dense<[[[[1.0, -2.0], [0.5, 3.0]]]]> : tensor<1x1x2x2xf32>
  %s = nn.constant dense<[1.5, -0.5]> : tensor<2xf32>
  %t = nn.constant dense<[0.25, 2.0]> : tensor<2xf32>
  %y = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x3x3x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x3x3x2xf32>
  %m = nn.mul %y, %s : (tensor<1x3x3x2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  %z = nn.add %m, %t : (tensor<1x3x3x2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  func.return %z : tensor<1x3x3x2xf32>
}
"""


def test_a_reused_constant_of_a_decomposed_batch_norm_still_folds_right():
    """%s and %t have the bias's type: one becomes the bias while the mul and add
    that read it are still there."""
    module = fold(NHWC_CONV_MUL_ADD)
    assert set(constants(module)) == {"w_bn_folded", "w_bn_bias"}
    assert [op.name for op in entry_function(module).body.ops][-2:] == [
        "nn.conv",
        "func.return",
    ]
    check_same_results(NHWC_CONV_MUL_ADD, module, shape=(1, 3, 3, 2))
