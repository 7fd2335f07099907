"""quantize{fixed-ranges=...}: activations with a known range (relu6, sigmoid,
tanh) are fake-quantized with it, uncalibrated, as TF contrib.quantize's
FixedQuantize; convert-to-int then quantizes them with exactly those scales."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.utils.exceptions import PassFailedException

from graph_opt import api
from graph_opt.dialects.nn.qint import DequantizeOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.entry import entry_function
from graph_opt.interpreter import run_function
from graph_opt.passes.quantize.quantize import QuantizePass
from graph_opt.quantization.fake_quant_math import nudge

SHAPE = (1, 2, 4, 4)


def layer(activation: str) -> str:
    """A 1x1 conv and `activation` of it (%c), the input's range stated,
    nothing calibrated."""
    return f"""
    func.func @main(%x: tensor<1x2x4x4xf32> {{nn.fixed_range = array<f32: -1.0, 1.0>}}) -> tensor<1x2x4x4xf32> {{
      %w = nn.constant dense<[[[[1.5]], [[-2.0]]], [[[3.0]], [[2.5]]]]> : tensor<2x2x1x1xf32>
      %c = nn.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
      %a = {activation} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
      func.return %a : tensor<1x2x4x4xf32>
    }}
    """


ACTIVATIONS = {
    "nn.clip %c {min = 0.0 : f32, max = 6.0 : f32}": (0.0, 6.0),
    "nn.sigmoid %c": (0.0, 1.0),
    "nn.tanh %c": (-1.0, 1.0),
}


def inputs(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, SHAPE).astype(np.float32)


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_fixed_range_output_on_its_grid_within_one_step(activation):
    """The quantized graph's output lies on the grid of the fixed range (as
    TF nudges it to hold 0) and within a few steps (the input's, the weights'
    and the output's rounding) of the float graph's."""
    grid = nudge(*ACTIVATIONS[activation], num_bits=8, narrow_range=False)
    low, high, step = float(grid.min), float(grid.max), float(grid.scale)
    float_module = api.parse(layer(activation))
    quantized = api.run(float_module.clone(), "quantize{fixed-ranges=all}")
    for seed in range(5):
        x = inputs(seed)
        (expected,) = run_function(float_module, [x])
        (got,) = run_function(quantized, [x])
        levels = (got - low) / step
        assert np.allclose(levels, np.round(levels), atol=1e-3)
        assert got.min() >= low - 1e-6 and got.max() <= high + 1e-6
        assert np.abs(got - expected).max() <= 3 * step


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_convert_to_int_takes_the_fixed_scale(activation):
    """convert-to-int makes the activation int8 with the scale and zero point
    of the fixed range (nudged to hold 0); it computes what the fake-quantized
    graph does, to a step."""
    grid = nudge(*ACTIVATIONS[activation], num_bits=8, narrow_range=False)
    quantized = api.run(api.parse(layer(activation)), "quantize{fixed-ranges=all}")
    integer = api.run(quantized.clone(), "convert-to-int")
    out = entry_function(integer).get_return_op().operands[0].owner
    assert isinstance(out, DequantizeOp)  # the int8 output, read back as float
    scale = float(grid.scale)
    assert np.isclose(out.scale.get_values()[0], scale, rtol=1e-6)
    assert out.zero_point.get_values()[0] == int(grid.zero_point) - 128
    for seed in range(3):
        x = inputs(seed)
        (fake,) = run_function(quantized, [x])
        (exact,) = run_function(integer, [x])
        assert np.abs(fake - exact).max() <= scale + 1e-6


def test_statistics_count_fixed_ranges():
    """The input's stated range and the sigmoid's known one."""
    stats: list = []
    api.run(
        api.parse(layer("nn.sigmoid %c")),
        "quantize{fixed-ranges=all}",
        statistics=stats,
    )
    assert stats[0].counters["fixed ranges used"] == 2


def test_without_the_option_only_stated_ranges_are_fixed():
    """The input's stated range is used; the sigmoid takes its calibrated
    range, and without one is an error."""
    with pytest.raises(PassFailedException, match="no calibrated range for nn.sigmoid"):
        QuantizePass().apply(Context(), api.parse(layer("nn.sigmoid %c")))
    calibrated = layer("nn.sigmoid %c {nn.range = array<f32: 0.25, 0.75>}")
    module = api.run(api.parse(calibrated), "quantize")
    ranges = [
        (op.min.get_values()[0], op.max.get_values()[0])
        for op in module.walk()
        if isinstance(op, FakeQuantOp) and not op.is_narrow
    ]
    assert ranges == [(-1.0, 1.0), (0.0, 0.75)]


def test_unknown_activation_is_one_line():
    with pytest.raises(PassFailedException, match="unknown activation 'gelu'"):
        QuantizePass(fixed_ranges="relu6,gelu").apply(
            Context(), api.parse(layer("nn.sigmoid %c"))
        )


def test_stated_range_min_above_max_is_one_line():
    text = layer("nn.sigmoid %c").replace("-1.0, 1.0", "1.0, -1.0")
    with pytest.raises(PassFailedException, match="min must not exceed max"):
        QuantizePass().apply(Context(), api.parse(text))


def test_training_rejects_fixed_ranges():
    with pytest.raises(PassFailedException, match="training=true learns"):
        QuantizePass(training=True, fixed_ranges="all").apply(
            Context(), api.parse(layer("nn.sigmoid %c"))
        )
