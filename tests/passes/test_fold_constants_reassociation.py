"""fold-constants merges the constant factors of product chains: the chain
becomes one multiply, and the results stay those of the original to float
rounding (random inputs, random factors, ints wrapping alike)."""

import numpy as np
import pytest

from graph_opt import api
from graph_opt.entry import entry_function
from graph_opt.interpreter import run_function

CHAIN = """
func.func @main(%x: tensor<4x8xDT>) -> tensor<4x8xDT> {
  %a = nn.constant dense<A> : tensor<8xDT>
  %b = nn.constant dense<B> : tensor<DT>
  %c = nn.constant dense<C> : tensor<4x1xDT>
  %d = nn.constant dense<D> : tensor<1x8xDT>
  %0 = nn.mul %x, %a : (tensor<4x8xDT>, tensor<8xDT>) -> tensor<4x8xDT>
  %1 = nn.mul %b, %0 : (tensor<DT>, tensor<4x8xDT>) -> tensor<4x8xDT>
  %2 = nn.mul %1, %d : (tensor<4x8xDT>, tensor<1x8xDT>) -> tensor<4x8xDT>
  %3 = nn.mul %2, %c : (tensor<4x8xDT>, tensor<4x1xDT>) -> tensor<4x8xDT>
  func.return %3 : tensor<4x8xDT>
}
"""


def literal(array: np.ndarray) -> str:
    return np.array2string(array, separator=", ", threshold=10**6).replace("\n", "")


@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_product_chains_merge_and_keep_their_values(dtype: str):
    rng = np.random.default_rng(1)
    numpy_type = np.float32 if dtype == "f32" else np.int32

    def draw(shape):
        if dtype == "f32":
            return rng.uniform(-2, 2, shape).astype(np.float32)
        return rng.integers(-(2**20), 2**20, shape, dtype=np.int32)

    text = CHAIN.replace("DT", dtype)
    for name, shape in (("A", (8,)), ("B", ()), ("C", (4, 1)), ("D", (1, 8))):
        text = text.replace(f"dense<{name}>", f"dense<{literal(draw(shape))}>")
    module = api.parse(text)
    x = draw((4, 8)).astype(numpy_type)
    [expected] = run_function(module, [x])
    api.run(module, "fold-constants")
    muls = [op for op in entry_function(module).body.ops if op.name == "nn.mul"]
    assert len(muls) == 2  # a, b, d merge; c [4, 1] would grow them into [4, 8]
    [actual] = run_function(module, [x])
    if dtype == "f32":
        np.testing.assert_allclose(actual, expected, rtol=1e-6)
    else:
        np.testing.assert_array_equal(actual, expected)  # wraps alike
