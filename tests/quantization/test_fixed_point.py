"""quantize_multiplier (TFLite/TOSA scale as multiplier and shift) and apply_scale."""

from __future__ import annotations

import math

import numpy as np
import pytest

from graph_opt.quantization.fixed_point import (
    apply_scale,
    quantize_multiplier,
    quantize_multipliers,
    reciprocal_scale,
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


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (1, ((1 << 30) + 1, 30)),  # k = 0
        (2, ((((1 << 30) + 1) << 1) // 2, 31)),
        (9, ((((1 << 30) + 1) << 4) // 9, 34)),  # 8 < 9 <= 16: k = 4
        (16, ((((1 << 30) + 1) << 4) // 16, 34)),
        (256, ((((1 << 30) + 1) << 8) // 256, 38)),
    ],
)
def test_reciprocal_scale_is_tosas_definition(count, expected):
    multiplier, shift = reciprocal_scale(np.array([count]))
    assert (int(multiplier[0]), int(shift[0])) == expected
    assert 1 << 30 <= multiplier[0] < 1 << 31


def test_reciprocal_scale_divides_to_nearest():
    """apply_scale_32 by reciprocal_scale(c) is acc / c to nearest for sums of
    up to 64 int8 values; at a tie, the multiplier (a bit above 2^shift / c)
    may round a negative sum down (-8191 / 2 gives -4096)."""
    counts = np.arange(1, 65)
    multiplier, shift = reciprocal_scale(counts)
    for acc in (-8191, -255, -7, -1, 0, 1, 3, 254, 8128):
        got = apply_scale(np.full(64, acc), multiplier, shift)
        exact = acc / counts
        assert (np.abs(got - exact) <= 0.5).all()
        ties = np.abs(exact - np.floor(exact) - 0.5) < 1e-12
        np.testing.assert_array_equal(got[~ties], np.rint(exact[~ties]))
    assert apply_scale(np.array([-8191]), *reciprocal_scale(np.array([2])))[0] == -4096
