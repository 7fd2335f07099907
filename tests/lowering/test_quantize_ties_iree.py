"""nn.quantize lowered to TOSA runs on IREE bit for bit as the interpreter
(ONNX's QuantizeLinear: x / scale in float32, rounded half to even, or half
away from zero as TFLite's reference QUANTIZE, plus the
zero point), at every rounding tie and one ulp either side of it.

The lowering once multiplied by 1 / scale and added the zero point in float32
before rounding: values at or beside a tie moved by a level, and in int8
CNNs with float activations between layers (MobileNetV3's hard-swish,
EfficientNet's swish) the moves reached the logits, up to 6 steps
(bench/int8_iree.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from graph_opt import api
from graph_opt.dialects.nn.qint import QuantizeOp
from graph_opt.interpreter import run_function

sys.path.insert(0, str(Path(__file__).parent))
from iree_harness import UNET_INPUT_SHAPE, CompiledGraphs, int8_unet  # noqa: E402

SCALES = np.array([0.0235294122, 0.1, 0.0301, 0.00713, 0.5, 3.7e-4], np.float32)
ZERO_POINTS = np.array([-7, 3, -128, 0, 100, 127])
WIDTH = 1024


def listed(values: np.ndarray) -> str:
    return ", ".join(repr(float(v)) for v in values)


QUANTIZE = f"""
func.func @per_tensor(%x: tensor<6x{WIDTH}xf32>) -> tensor<6x{WIDTH}xi8> {{
  %q = nn.quantize %x {{scale = array<f32: 0.0235294122>, zero_point = array<i64: -7>}} : (tensor<6x{WIDTH}xf32>) -> tensor<6x{WIDTH}xi8>
  func.return %q : tensor<6x{WIDTH}xi8>
}}
func.func @per_tensor_half_away(%x: tensor<6x{WIDTH}xf32>) -> tensor<6x{WIDTH}xi8> {{
  %q = nn.quantize %x {{scale = array<f32: 0.0235294122>, zero_point = array<i64: -7>, arithmetic = "divide-half-away"}} : (tensor<6x{WIDTH}xf32>) -> tensor<6x{WIDTH}xi8>
  func.return %q : tensor<6x{WIDTH}xi8>
}}
func.func @per_axis(%x: tensor<6x{WIDTH}xf32>) -> tensor<6x{WIDTH}xi8> {{
  %q = nn.quantize %x {{scale = array<f32: {listed(SCALES)}>, zero_point = array<i64: {", ".join(map(str, ZERO_POINTS))}>, axis = 0 : i64}} : (tensor<6x{WIDTH}xf32>) -> tensor<6x{WIDTH}xi8>
  func.return %q : tensor<6x{WIDTH}xi8>
}}"""


@pytest.fixture(scope="module")
def compiled() -> CompiledGraphs:
    return CompiledGraphs(api.parse(QUANTIZE))


def ties(scales: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(k + 0.5) * scale in float32 for random k, one row per scale."""
    k = rng.integers(-300, 300, (len(scales), WIDTH)).astype(np.float32)
    return ((k + np.float32(0.5)) * scales[:, None]).astype(np.float32)


@pytest.mark.parametrize("name", ["per_tensor", "per_axis", "per_tensor_half_away"])
@pytest.mark.parametrize("toward", [0.0, np.inf, -np.inf])
def test_quantize_at_and_beside_ties_is_the_interpreters(compiled, name, toward):
    rng = np.random.default_rng(3)
    scales = SCALES if name == "per_axis" else np.full(6, SCALES[0])
    for _ in range(3):
        x = ties(scales, rng)
        if toward:
            x = np.nextafter(x, np.float32(toward))
        (expected,) = run_function(compiled.module, [x], function=name)
        (actual,) = compiled.run(name, [x])
        np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("per_channel", [False, True])
def test_int8_cnn_fed_ties_runs_on_iree_bit_exact(tmp_path, per_channel):
    """An int8 UNet whose input values sit at and beside its input
    quantization's ties: IREE's outputs are the interpreter's bit for bit."""
    rng = np.random.default_rng(9)
    module = int8_unet(tmp_path, rng, per_channel, "convert-to-int")
    boundary = next(op for op in module.walk() if isinstance(op, QuantizeOp))
    scale = np.float32(boundary.scales[0])
    compiled = CompiledGraphs(module)
    for toward in (0.0, np.inf, -np.inf):
        k = rng.integers(-60, 60, UNET_INPUT_SHAPE).astype(np.float32)
        x = ((k + np.float32(0.5)) * scale).astype(np.float32)
        if toward:
            x = np.nextafter(x, np.float32(toward))
        (expected,) = run_function(module, [x])
        (actual,) = compiled.run("main", [x])
        np.testing.assert_array_equal(actual, expected)
