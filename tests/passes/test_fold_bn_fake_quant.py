"""fold-bn into per-channel fake-quantized filters keeps the numbers."""

import numpy as np

from graph_opt import api
from graph_opt.interpreter import run_function

GRAPH = """
func.func @main(%x: tensor<1x5x5x3xf32>) -> tensor<1x5x5x4xf32> {
  %w0 = nn.constant dense<WEIGHTS> : tensor<3x3x3x4xf32>
  %w = nn.fake_quant %w0 {min = array<f32: MINS>, max = array<f32: MAXS>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 3 : i64} : (tensor<3x3x3x4xf32>) -> tensor<3x3x3x4xf32>
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


def test_fold_into_per_channel_fake_quant_keeps_outputs():
    rng = np.random.default_rng(3)
    weights = rng.standard_normal((3, 3, 3, 4)).astype(np.float32) * 0.3
    limit = np.abs(weights).reshape(-1, 4).max(axis=0)
    text = GRAPH
    for key, value in {
        "WEIGHTS": literal(weights),
        "GAMMA": literal(rng.uniform(0.5, 2.0, 4).astype(np.float32)),
        "BETA": literal(rng.standard_normal(4).astype(np.float32)),
        "MEAN": literal(rng.standard_normal(4).astype(np.float32)),
        "VAR": literal(rng.uniform(0.5, 2.0, 4).astype(np.float32)),
    }.items():
        text = text.replace(key, value)
    text = text.replace("MINS", ", ".join(str(float(-v)) for v in limit))
    text = text.replace("MAXS", ", ".join(str(float(v)) for v in limit))
    module = api.parse(text)
    x = rng.standard_normal((1, 5, 5, 3)).astype(np.float32)
    before = run_function(module, [x])[0]
    api.run(module, "fold-bn")
    assert "nn.batch_norm" not in api.to_mlir(module)
    np.testing.assert_allclose(
        run_function(module, [x])[0], before, rtol=1e-5, atol=1e-5
    )
