"""refine-shapes: types become more precise, values stay the same."""

import numpy as np

from graph_opt import api
from graph_opt.entry import entry_function
from graph_opt.interpreter import run_function

GRAPH = """
func.func @main(%x: tensor<2x6xf32>, %y: tensor<4xf32>) -> tensor<*xf32> {
  %s = nn.constant dense<[3, 4]> : tensor<2xi64>
  %i = nn.identity %s : (tensor<2xi64>) -> tensor<2xi64>
  %r = nn.reshape %x, %i : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  %a = nn.add %r, %y : (tensor<*xf32>, tensor<4xf32>) -> tensor<*xf32>
  %t = nn.tanh %a : (tensor<*xf32>) -> tensor<*xf32>
  func.return %t : tensor<*xf32>
}
"""


def test_refine_shapes_keeps_values_and_makes_types_static():
    rng = np.random.default_rng(0)
    inputs = [
        rng.standard_normal((2, 6)).astype(np.float32),
        rng.standard_normal(4).astype(np.float32),
    ]
    module = api.parse(GRAPH)
    before = run_function(module, inputs)
    api.run(module, "refine-shapes")
    after = run_function(module, inputs)
    np.testing.assert_array_equal(after[0], before[0])
    function = entry_function(module)
    assert [str(t) for t in function.function_type.outputs] == ["tensor<3x4xf32>"]
    assert "tensor<*xf32>" not in api.to_mlir(module)


def test_fold_constants_refines_a_reshape_to_a_computed_shape():
    """Shape -> Concat -> Reshape folds, then the reshape's type is static."""
    module = api.parse("""
func.func @main(%x: tensor<2x6xf32>) -> tensor<*xf32> {
  %shape = nn.shape %x : (tensor<2x6xf32>) -> tensor<2xi64>
  %r = nn.reshape %x, %shape : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  %e = nn.exp %r : (tensor<*xf32>) -> tensor<*xf32>
  func.return %e : tensor<*xf32>
}""")
    x = np.random.default_rng(1).standard_normal((2, 6)).astype(np.float32)
    before = run_function(module, [x])
    api.run(module, "fold-constants")
    np.testing.assert_allclose(run_function(module, [x])[0], before[0])
    assert "tensor<*xf32>" not in api.to_mlir(module)


LOOP_FROM_REFINABLE = """
func.func @main(%x: tensor<1x4xf32>, %n: tensor<i32>) -> tensor<?x?xf32> {
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  %z = nn.relu %x : (tensor<1x4xf32>) -> tensor<?x?xf32>
  %i, %y = scf.while (%a = %zero, %b = %z) : (tensor<i32>, tensor<?x?xf32>) -> (tensor<i32>, tensor<?x?xf32>) {
    %lt = nn.less %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a, %b : tensor<i32>, tensor<?x?xf32>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<?x?xf32>):
    %next = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %bb = nn.add %b, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    scf.yield %next, %bb : tensor<i32>, tensor<?x?xf32>
  }
  func.return %y : tensor<?x?xf32>
}
"""


def test_a_loop_value_takes_its_refined_type_and_keeps_its_values():
    x = np.random.default_rng(0).standard_normal((1, 4)).astype(np.float32)
    inputs = [x, np.array(3, np.int32)]
    module = api.parse(LOOP_FROM_REFINABLE)
    expected = run_function(module, inputs)
    api.run(module, "fold-constants")  # refines types on the way, as import's did
    module.verify()
    for got, want in zip(run_function(module, inputs), expected, strict=True):
        np.testing.assert_array_equal(got, want)
    text = api.to_mlir(module)
    assert "?" not in text and "tensor.cast" not in text


def test_a_growing_loop_value_stays_dynamic_and_keeps_its_values():
    """The loop value gains a row each iteration: only its first dim is
    dynamic, and the module computes what it did."""
    module = api.parse(
        LOOP_FROM_REFINABLE.replace(
            "%bb = nn.add %b, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>",
            "%bb = nn.concat %b, %b {axis = 0 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>",
        )
    )
    x = np.random.default_rng(2).standard_normal((1, 4)).astype(np.float32)
    inputs = [x, np.array(3, np.int32)]
    expected = run_function(module, inputs)
    api.run(module, "refine-shapes")
    module.verify()
    (got,) = run_function(module, inputs)
    assert got.shape == (8, 4)
    np.testing.assert_array_equal(got, expected[0])
    assert str(entry_function(module).function_type.outputs.data[0]) == (
        "tensor<?x4xf32>"
    )
