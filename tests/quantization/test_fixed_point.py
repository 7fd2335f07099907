"""quantize_multiplier (TFLite/TOSA scale as multiplier and shift) and apply_scale."""

from __future__ import annotations

import math

import numpy as np
import pytest

from graph_opt.quantization.fixed_point import (
    apply_scale,
    quantize_multiplier,
    quantize_multipliers,
)


@pytest.mark.parametrize(
    ("scale", "expected"),
    [
        (0.5, (1 << 30, 31)),
        (1.0, (1 << 30, 30)),
        (0.75, (3 << 29, 31)),
        (3.0, (3 << 29, 29)),
        # The mantissa rounds up to 2^31: halved, exponent one more.
        (1 - 2**-40, (1 << 30, 30)),
        # Shift capped at 62: the multiplier shifts down instead.
        (2**-40, (1 << 22, 62)),
        (2**-70, (0, 62)),
    ],
)
def test_quantize_multiplier_hand_computed(scale, expected):
    assert quantize_multiplier(scale) == expected


def test_quantize_multiplier_scale16():
    assert quantize_multiplier(0.75, scale32=False) == (3 << 13, 15)


@pytest.mark.parametrize("scale", [0.0, -1.0, math.inf, math.nan, 2.0**30])
def test_quantize_multiplier_rejects_bad_scales(scale):
    with pytest.raises(ValueError):
        quantize_multiplier(scale)


def test_quantize_multiplier_is_accurate_to_31_bits():
    rng = np.random.default_rng(0)
    scales = np.exp(rng.uniform(np.log(1e-6), np.log(1e4), 500))
    multipliers, shifts = quantize_multipliers(scales)
    assert ((multipliers >= 1 << 30) & (multipliers < 1 << 31)).all()
    approx = multipliers.astype(np.float64) * np.exp2(-shifts.astype(np.float64))
    assert (np.abs(approx / scales - 1) <= 2.0**-31).all()


def test_apply_scale_rounds_half_up_like_float_rounding():
    rng = np.random.default_rng(1)
    values = rng.integers(-(1 << 20), 1 << 20, 2000)
    for scale in (0.0123, 0.5, 0.37, 1.9):
        multiplier, shift = quantize_multiplier(scale)
        exact = values * (multiplier / 2.0**shift)
        expected = np.floor(exact + 0.5).astype(np.int64)
        np.testing.assert_array_equal(apply_scale(values, multiplier, shift), expected)


def test_apply_scale_double_round_hand_computed():
    # x * 0.25, shift 32: single rounding adds 2^31 (0.5 in output units), double
    # rounding 0.75 for x >= 0 and 0.25 for x < 0, then floors.
    multiplier, shift = 1 << 30, 32
    values = np.array([2, -2, 6, -6, 5, -5])
    np.testing.assert_array_equal(
        apply_scale(values, multiplier, shift), [1, 0, 2, -1, 1, -1]
    )
    np.testing.assert_array_equal(
        apply_scale(values, multiplier, shift, double_round=True), [1, -1, 2, -2, 2, -1]
    )
    # With shift <= 31 double rounding changes nothing.
    np.testing.assert_array_equal(
        apply_scale(values, 1 << 29, 31, double_round=True),
        apply_scale(values, 1 << 29, 31),
    )
