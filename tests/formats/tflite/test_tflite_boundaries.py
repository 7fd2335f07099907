"""nn.quantize and nn.dequantize with each recipe's `arithmetic` are TFLite's
QUANTIZE and DEQUANTIZE in that recipe's runtime, bit for bit: inputs on and
next to rounding ties, out of range and infinite, sizes with a tail past the
builtin kernels' blocks of 8."""

from __future__ import annotations

import numpy as np
import pytest

from graph_opt import api
from graph_opt.formats.tflite.exporter import tflite_bytes
from graph_opt.interpreter import run_function
from graph_opt.quantization.runtime_recipes import BOUNDARY_ARITHMETIC
from graph_opt.testing.tflite_runtime import tflite_interpreter

pytest.importorskip("tflite")
pytest.importorskip("tensorflow")

SIZE = 1003


def round_trip(scale: float, zero_point: int, quantize: str, dequantize: str):
    s = repr(float(np.float32(scale)))
    t, q = f"tensor<1x{SIZE}xf32>", f"tensor<1x{SIZE}xi8>"
    params = f"scale = array<f32: {s}>, zero_point = array<i64: {zero_point}>"
    return api.parse(f"""
builtin.module {{
  func.func @main(%x: {t}) -> ({q}, {t}) {{
    %q = "nn.quantize"(%x) <{{{params}, arithmetic = "{quantize}"}}>
      {{nn.quantization = {{scale = {s} : f32, zero_point = {zero_point} : i64}}}}
      : ({t}) -> {q}
    %d = "nn.dequantize"(%q) <{{{params}, arithmetic = "{dequantize}"}}> : ({q}) -> {t}
    func.return %q, %d : {q}, {t}
  }}
}}""")


def inputs(rng, scale: float) -> np.ndarray:
    levels = rng.integers(-140, 140, SIZE).astype(np.float64)
    nudges = rng.choice([0.5, -0.5, 0.0, 0.3, 0.4999999, 0.5000001], SIZE)
    x = ((levels + nudges) * scale).astype(np.float32)
    x[:3] = [np.inf, -np.inf, 1e30]
    return x.reshape(1, SIZE)


def tflite_run(data: bytes, runtime: str, x: np.ndarray) -> list[np.ndarray]:
    """QUANTIZE's int8 codes and DEQUANTIZE's floats in `runtime`."""
    runner = tflite_interpreter(data, runtime)
    runner.set_tensor(runner.get_input_details()[0]["index"], x)
    runner.invoke()
    return [runner.get_tensor(o["index"]) for o in runner.get_output_details()]


@pytest.mark.parametrize("recipe", sorted(BOUNDARY_ARITHMETIC))
def test_boundaries_are_the_runtimes_quantize_and_dequantize(recipe):
    rng = np.random.default_rng(5)
    for _ in range(6):
        scale = float(np.float32(rng.uniform(0.001, 0.2)))
        zero_point = int(rng.integers(-30, 30))
        module = round_trip(scale, zero_point, *BOUNDARY_ARITHMETIC[recipe])
        x = inputs(rng, scale)
        codes, floats = tflite_run(tflite_bytes(module), recipe, x)
        ours = run_function(module, [x])
        np.testing.assert_array_equal(ours[0], codes)
        np.testing.assert_array_equal(ours[1], floats)
