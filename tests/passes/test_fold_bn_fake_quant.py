"""fold-bn into fake-quantized filters (per channel, per tensor, negative scales)
keeps the numbers, and declines what would move a weight to another level."""

import numpy as np
import pytest

from graph_opt import api
from graph_opt.interpreter import run_function

GRAPH = """
func.func @main(%x: tensor<1x5x5x3xf32>) -> tensor<1x5x5x4xf32> {
  %w0 = nn.constant dense<WEIGHTS> : tensor<3x3x3x4xf32>
  %w = nn.fake_quant %w0 {min = array<f32: MINS>, max = array<f32: MAXS>, num_bits = 8 : i64, narrow_range = 1 : i64AXIS} : (tensor<3x3x3x4xf32>) -> tensor<3x3x3x4xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC", auto_pad = "SAME_UPPER"} : (tensor<1x5x5x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x5x5x4xf32>
  %gamma = nn.constant dense<GAMMA> : tensor<4xf32>
  %beta = nn.constant dense<BETA> : tensor<4xf32>
  %mean = nn.constant dense<MEAN> : tensor<4xf32>
  %var = nn.constant dense<VAR> : tensor<4xf32>
  %y = nn.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 1.0e-3 : f32, data_layout = "NHWC"} : (tensor<1x5x5x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x5x5x4xf32>
  func.return %y : tensor<1x5x5x4xf32>
}
"""


def literal(array: np.ndarray) -> str:
    return np.array2string(array, separator=", ", floatmode="unique", threshold=10**6)


def graph(rng, gamma: np.ndarray, per_channel: bool, weights=None) -> str:
    if weights is None:
        weights = rng.standard_normal((3, 3, 3, 4)).astype(np.float32) * 0.3
    limit = np.abs(weights).reshape(-1, 4).max(axis=0)
    if not per_channel:
        limit = limit.max(keepdims=True)
    text = GRAPH
    for key, value in {
        "WEIGHTS": literal(weights),
        "GAMMA": literal(gamma.astype(np.float32)),
        "BETA": literal(rng.standard_normal(4).astype(np.float32)),
        "MEAN": literal(rng.standard_normal(4).astype(np.float32)),
        "VAR": literal(rng.uniform(0.5, 2.0, 4).astype(np.float32)),
    }.items():
        text = text.replace(key, value)
    text = text.replace("AXIS", ", axis = 3 : i64" if per_channel else "")
    text = text.replace("MINS", ", ".join(str(float(-v)) for v in limit))
    return text.replace("MAXS", ", ".join(str(float(v)) for v in limit))


@pytest.mark.parametrize(
    "per_channel", [True, False], ids=["per-channel", "per-tensor"]
)
@pytest.mark.parametrize("signs", ["positive", "mixed"])
def test_fold_into_fake_quant_keeps_outputs(per_channel, signs):
    rng = np.random.default_rng(3)
    gamma = rng.uniform(0.5, 2.0, 4)
    if signs == "mixed":
        gamma *= [1, -1, 1, -1]
    module = api.parse(graph(rng, gamma, per_channel))
    x = rng.standard_normal((1, 5, 5, 3)).astype(np.float32)
    before = run_function(module, [x])[0]
    api.run(module, "fold-bn")
    text = api.to_mlir(module)
    assert "nn.batch_norm" not in text and "axis = 3" in text
    np.testing.assert_allclose(
        run_function(module, [x])[0], before, rtol=1e-5, atol=1e-5
    )


def test_negative_fold_that_would_move_a_weight_is_declined():
    """A weight exactly on a rounding tie rounds up; mirrored, it would round
    the other way: a negative scale is declined."""
    rng = np.random.default_rng(4)
    weights = np.full((3, 3, 3, 4), 0.25, np.float32)
    weights[0, 0, 0] = -1.0  # range [-1, 1], step 2/254: 0.25 is 31.75 steps
    step = np.float32(2.0 / 254)
    weights[1, 1, 1] = np.float32(31.5) * step  # a tie
    gamma = np.array([1.0, -1.0, 1.0, 1.0])
    module = api.parse(graph(rng, gamma, per_channel=True, weights=weights))
    with pytest.warns(UserWarning, match="another level"):
        api.run(module, "fold-bn")
    assert "nn.batch_norm" in api.to_mlir(module)
