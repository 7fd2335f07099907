"""TensorFlow's fake-quant formulas on hand-computed cases, and nn.fake_quant in the interpreter."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graph_opt.api import parse
from graph_opt.interpreter import run_function
from graph_opt.quantization.fake_quant_math import (
    fake_quant,
    fake_quant_gradient_masks,
    nudge,
    quant_range,
)

F = np.float32


def arr(*values) -> np.ndarray:
    return np.array(values, dtype=F)


@pytest.mark.parametrize(
    "bits, narrow, expected",
    [
        (8, False, (0, 255)),
        (8, True, (1, 255)),
        (2, False, (0, 3)),
        (16, True, (1, 65535)),
    ],
)
def test_quant_range(bits, narrow, expected):
    assert quant_range(bits, narrow) == expected


def test_nudge_per_channel():
    """Zero point rounds down (0.25), up (0.75), clamps below (min > 0) and above (max < 0)."""
    nudged = nudge(
        arr(-0.25, -0.75, 2.0, -257.0), arr(254.75, 254.25, 257.0, -2.0), 8, False
    )
    np.testing.assert_array_equal(nudged.zero_point, [0, 1, 0, 255])
    np.testing.assert_array_equal(nudged.scale, [1, 1, 1, 1])
    np.testing.assert_array_equal(nudged.min, [0, -1, 0, -255])
    np.testing.assert_array_equal(nudged.max, [255, 254, 255, 0])


def test_nudge_narrow_range():
    nudged = nudge(arr(-127.0), arr(127.0), 8, True)
    assert (nudged.min[0], nudged.max[0], nudged.scale[0], nudged.zero_point[0]) == (
        -127,
        127,
        1,
        128,
    )


def test_nudge_fractional_scale():
    """scale 0.5, zero point from min 3.2 -> 3: the range moves up by 0.1."""
    nudged = nudge(arr(-1.6), arr(5.9), 4, False)
    assert nudged.scale[0] == F(0.5)
    assert nudged.zero_point[0] == 3
    assert (nudged.min[0], nudged.max[0]) == (F(-1.5), F(6.0))


@pytest.mark.parametrize(
    "lo, hi, x, expected",
    [
        # scale 1, zero point 0: ties round up, the range clamps.
        (0.0, 255.0, (-1, 0, 0.4, 0.5, 1.5, 254.6, 256), (0, 0, 0, 1, 2, 255, 255)),
        # min > 0: the range is nudged down to [0, 255].
        (2.0, 257.0, (1, 3.2, 300), (1, 3, 255)),
        # max < 0: the range is nudged up to [-255, 0].
        (-257.0, -2.0, (-300, -3.7, -0.2, 5), (-255, -4, 0, 0)),
        # zero point 1: the range becomes [-1, 254].
        (-0.75, 254.25, (-3, -0.75, 0.3, 254.2, 260), (-1, -1, 0, 254, 254)),
    ],
)
def test_fake_quant_8_bits(lo, hi, x, expected):
    np.testing.assert_array_equal(fake_quant(arr(*x), [lo], [hi], 8, False), expected)


def test_fake_quant_narrow_range():
    x = arr(-200, -127.4, -1.5, 0.5, 200)
    np.testing.assert_array_equal(
        fake_quant(x, [-127.0], [127.0], 8, True), [-127, -127, -1, 1, 127]
    )


def test_fake_quant_2_bits():
    """Levels -1, 0, 1, 2 (scale 1, zero point 1); narrow: -1, 0, 1."""
    x = arr(-5, -0.6, 0.49, 1.5, 9)
    np.testing.assert_array_equal(
        fake_quant(x, [-1.0], [2.0], 2, False), [-1, -1, 0, 2, 2]
    )
    np.testing.assert_array_equal(
        fake_quant(x, [-1.0], [1.0], 2, True), [-1, -1, 0, 1, 1]
    )


def test_fake_quant_16_bits():
    x = arr(-40000, 12.25, 12.5, 40000)
    np.testing.assert_array_equal(
        fake_quant(x, [-32768.0], [32767.0], 16, False), [-32768, 12, 13, 32767]
    )


def test_fake_quant_fractional_scale():
    """Levels of [-1.5, 6.0] step 0.5: 0.2 -> 0, 0.3 -> 0.5, 5.8 -> 6."""
    x = arr(-4, 0.2, 0.3, 1.74, 5.8, 7)
    np.testing.assert_array_equal(
        fake_quant(x, [-1.6], [5.9], 4, False), [-1.5, 0, 0.5, 1.5, 6, 6]
    )


def test_fake_quant_per_channel():
    """Channels on axis 1: [-1, 254], [0, 255], [-255, 0]."""
    x = np.array([[-3, -3, -3], [100.4, 100.6, 100.6]], dtype=F)
    out = fake_quant(
        x, arr(-0.75, 0.0, -257.0), arr(254.25, 255.0, -2.0), 8, False, axis=1
    )
    np.testing.assert_array_equal(out, [[-1, 0, -3], [100, 101, 0]])


def test_zero_range_gives_zeros():
    x = arr(-2, 0.5, 3)
    np.testing.assert_array_equal(fake_quant(x, [0.0], [0.0], 8, False), [0, 0, 0])
    assert fake_quant_gradient_masks(x, [0.0], [0.0], 8, False).inside.all()


def test_gradient_masks_per_tensor():
    """Nudged range [-1, 254]: its bounds pass the gradient to the input."""
    masks = fake_quant_gradient_masks(
        arr(-2, -1, 0.3, 254, 254.5), [-0.75], [254.25], 8, False
    )
    np.testing.assert_array_equal(masks.inside, [0, 1, 1, 1, 0])
    np.testing.assert_array_equal(masks.below, [1, 0, 0, 0, 0])
    np.testing.assert_array_equal(masks.above, [0, 0, 0, 0, 1])


def test_gradient_masks_per_channel():
    x = np.array([[-0.5, -0.5], [300, 300]], dtype=F)
    masks = fake_quant_gradient_masks(
        x, arr(0.0, -1.0), arr(255.0, 2.0), 8, False, axis=1
    )
    np.testing.assert_array_equal(masks.below, [[1, 0], [0, 0]])
    np.testing.assert_array_equal(masks.above, [[0, 0], [1, 1]])
    np.testing.assert_array_equal(masks.inside, [[0, 1], [0, 0]])


def test_interpreter_runs_fake_quant():
    module = parse(
        """
        func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
          %0 = nn.fake_quant %x {min = array<f32: -0.75>, max = array<f32: 254.25>, num_bits = 8 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
          %1 = nn.fake_quant %x {min = array<f32: -1.0, 0.0, -257.0>, max = array<f32: 2.0, 255.0, -2.0>, num_bits = 2 : i64, narrow_range = 1 : i64, axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
          func.return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
        }
        """
    )
    x = np.random.default_rng(0).uniform(-300, 300, (2, 3)).astype(F)
    per_tensor, per_channel = run_function(module, [x])
    np.testing.assert_array_equal(
        per_tensor, fake_quant(x, [-0.75], [254.25], 8, False)
    )
    np.testing.assert_array_equal(
        per_channel,
        fake_quant(x, arr(-1, 0, -257), arr(2, 255, -2), 2, True, axis=1),
    )
    assert per_channel.dtype == F


EDGE_CASES = Path(__file__).parent / "fixtures" / "fake_quant_edge_cases.npz"


def test_edge_ranges_compute_what_tensorflow_computes():
    """min == max, min > max, denormal, tiny, NaN and infinite bounds, against
    TensorFlow's outputs stored by make_fake_quant_edge_cases.py (denormals
    flushed to zero, as its CPU kernels do)."""
    with np.load(EDGE_CASES) as stored:
        x, cases = stored["inputs"], stored["cases"]
        per_tensor, per_channel = stored["per_tensor"], stored["per_channel"]
    assert len(cases) >= 80
    with np.errstate(all="ignore"):
        for (low, high, narrow, bits), tensor, channel in zip(
            cases, per_tensor, per_channel
        ):
            args = ([low], [high], int(bits), bool(narrow))
            np.testing.assert_array_equal(fake_quant(x, *args), tensor)
            got = fake_quant(x.reshape(-1, 1), *args, axis=1).ravel()
            np.testing.assert_array_equal(got, channel)
