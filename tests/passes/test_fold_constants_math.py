"""fold-constants and prune on comparisons, logical ops, select, unary math and
the new reductions: evaluated when constant, removed when unused."""

import numpy as np

from graph_opt import api
from graph_opt.entry import entry_function
from graph_opt.interpreter import run_function

CONSTANT_GRAPH = """
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xi64>, tensor<2xi1>, tensor<2x3xf32>) {
  %w = nn.constant dense<[[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]]> : tensor<2x3xf32>
  %zero = nn.constant dense<0.0> : tensor<f32>
  %gt = nn.greater %w, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  %lt = nn.less_equal %w, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  %either = nn.logical_or %gt, %lt : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %sin = nn.sin %w : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %floor = nn.floor %sin : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %sel = nn.select %gt, %sin, %floor : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %prod = nn.reduce_prod %sel {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %y = nn.mul %x, %prod : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %arg = nn.argmax %w {keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<3xi64>
  %all = nn.reduce_all %either {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x3xi1>) -> tensor<2xi1>
  %xgt = nn.greater %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %z = nn.select %xgt, %x, %w : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %unused = nn.is_nan %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return %y, %arg, %all, %z : tensor<2x3xf32>, tensor<3xi64>, tensor<2xi1>, tensor<2x3xf32>
}
"""


def op_names(module) -> list[str]:
    return [op.name for op in entry_function(module).body.ops]


def test_fold_constants_evaluates_the_new_ops():
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    module = api.parse(CONSTANT_GRAPH)
    expected = run_function(module, [x])
    api.run(module, "fold-constants")
    for got, want in zip(run_function(module, [x]), expected):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)
    names = op_names(module)
    assert names.count("nn.constant") == 4  # w, prod, arg, all
    assert sorted(n for n in names if n != "nn.constant") == [
        "func.return", "nn.greater", "nn.mul", "nn.select",
    ]  # fmt: skip
    w = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], np.float32)
    np.testing.assert_array_equal(expected[1], np.argmax(w, axis=0))
    assert expected[2].tolist() == [True, True]


def test_prune_removes_unused_side_effect_free_ops():
    module = api.parse(CONSTANT_GRAPH)
    api.run(module, "prune")
    assert "nn.is_nan" not in op_names(module)


UNIT_AXES = """
func.func @main(%x: tensor<2x1xf32>, %p: tensor<1x3xi1>) -> (tensor<2x1xf32>, tensor<3xi1>, tensor<2xi64>) {
  %prod = nn.reduce_prod %x {axes = array<i64: 1>} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %any = nn.reduce_any %p {axes = array<i64: 0>, keepdims = 0 : i64} : (tensor<1x3xi1>) -> tensor<3xi1>
  %arg = nn.argmax %x {axis = 1 : i64, keepdims = 0 : i64} : (tensor<2x1xf32>) -> tensor<2xi64>
  func.return %prod, %any, %arg : tensor<2x1xf32>, tensor<3xi1>, tensor<2xi64>
}
"""


def test_unit_reductions_are_removed_but_argmax_over_a_unit_axis_is_not_its_input():
    """Prod and any over size-1 axes are their input (squeezed); the arg max over
    one is zeros of another type, never the input."""
    module = api.parse(UNIT_AXES)
    inputs = [np.array([[2.0], [-1.0]], np.float32), np.array([[True, False, True]])]
    expected = run_function(module, inputs)
    api.run(module, "fold-constants")
    names = op_names(module)
    assert "nn.reduce_prod" not in names and "nn.reduce_any" not in names
    assert "nn.argmax" in names
    got = run_function(module, inputs)
    for a, b in zip(got, expected):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert expected[2].tolist() == [0, 0]
