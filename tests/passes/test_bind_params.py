"""bind_params_by_name / bind-params: TVM's test_match_const pair, numerics, one-line errors."""

import numpy as np
import pytest

from graph_opt import api
from graph_opt.interpreter import run_function
from graph_opt.passes.bind_params import BindError, BindParamsPass, bind_params_by_name
from graph_opt.patterns import is_constant, is_op, wildcard

CONV_BIAS = """func.func @main(%x: tensor<1x3x8x8xf32> {nn.name = "x"},
    %w: tensor<4x3x3x3xf32> {nn.name = "w"}, %b: tensor<4x1x1xf32> {nn.name = "b"})
    -> tensor<1x4x6x6xf32> {
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %bias = nn.add %conv, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  func.return %bias : tensor<1x4x6x6xf32>
}"""
RNG = np.random.default_rng(0)
X = RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)
W = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
B = RNG.standard_normal((4, 1, 1)).astype(np.float32)
PATTERN = is_op("add")(is_op("conv")(wildcard(), is_constant()), wildcard())


def root(module):
    return module.body.block.first_op.body.block.last_op.operands[0]


def test_match_const():
    """TVM's test_match_const: the conv's weight matches is_constant() once bound."""
    module = api.parse(CONV_BIAS)
    assert PATTERN.match(root(module)) is None
    assert api.bind_params_by_name(module, {"w": W}) == ["w"]
    module.verify()
    assert PATTERN.match(root(module)) is not None


def test_no_match_const():
    module = api.parse(CONV_BIAS)
    assert bind_params_by_name(module, {"b": B}) == ["b"]
    assert PATTERN.match(root(module)) is None, "the weight is still an argument"


def test_bound_function_computes_the_same():
    module = api.parse(CONV_BIAS)
    before = run_function(module, {"x": X, "w": W, "b": B})[0]
    assert bind_params_by_name(module, {"b": B, "w": W}) == ["w", "b"]
    module.verify()
    function = module.body.block.first_op
    assert [a.type.get_shape() for a in function.args] == [(1, 3, 8, 8)]
    assert len(function.arg_attrs.data) == 1
    np.testing.assert_array_equal(run_function(module, {"x": X})[0], before)


def test_dynamic_dims_take_the_arrays_sizes():
    module = api.parse(CONV_BIAS.replace("tensor<4x1x1xf32>", "tensor<?x1x1xf32>"))
    before = run_function(module, {"x": X, "w": W, "b": B})[0]
    assert bind_params_by_name(module, {"b": B}) == ["b"]
    module.verify()
    np.testing.assert_array_equal(run_function(module, {"x": X, "w": W})[0], before)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"weight": W},
            "@main has no argument named 'weight' (its arguments: x, w, b)",
        ),
        ({"w": W.astype(np.float64)}, "the array is float64, not float32"),
        ({"w": W[:, :, :2]}, "the array's shape is [4, 3, 2, 3]"),
    ],
)
def test_bad_params_change_nothing(params, message):
    module = api.parse(CONV_BIAS)
    text = api.to_mlir(module)
    with pytest.raises(BindError) as error:
        bind_params_by_name(module, params)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert api.to_mlir(module) == text


def test_no_binding_of_a_called_function():
    called = CONV_BIAS.replace("func.func @main", "func.func private @main") + (
        """
func.func @caller(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
    %b: tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %y = func.call @main(%x, %w, %b)
    : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}"""
    )
    module = api.parse(called)
    with pytest.raises(BindError, match="@main is called in the module"):
        bind_params_by_name(module, {"w": W}, "main")


def test_pass_reports_what_it_bound(tmp_path):
    path = tmp_path / "weights.npz"
    np.savez(path, w=W, b=B)
    module = api.parse(CONV_BIAS)
    statistics: list = []
    api.run(module, [BindParamsPass(file=str(path))], statistics=statistics)
    assert statistics[0].counters == {"arguments bound": 2}
