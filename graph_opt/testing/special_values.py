"""Input values over the whole float (and integer) value space: NaN (with
payloads and sign), +-inf, +-0, subnormals, the largest finite values,
float16's 65504, whole numbers past 2^24 and 2^53, halves, and random bit
patterns; integer minima and maxima.

`RandomPick.array` (numpy) serves `bench/special_values.py`; the tests draw
the same kinds of values through hypothesis (`HypothesisPick` there).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graph_opt.dialects.nn.dtypes import float_info
from graph_opt.testing.opaque_variants import RandomPick as _RandomPick

MODERATE = "moderate"
"""Values for ops that sum many elements: specials, but no finite extreme
(whose sums overflow in an order-dependent way)."""
WHOLE = "whole"
"""Every value of the type, extremes included (elementwise ops)."""


def _nan_with_payload(dtype: np.dtype, payload: int, negative: bool) -> np.generic:
    """A quiet NaN of `dtype` whose mantissa holds `payload`."""
    info = float_info(dtype)
    bits = info.bits
    uint = np.dtype(f"u{bits // 8}")
    exponent = ((1 << info.nexp) - 1) << info.nmant
    quiet = 1 << (info.nmant - 1)
    sign = (1 << (bits - 1)) if negative else 0
    word = sign | exponent | quiet | (payload & (quiet - 1))
    return np.array(word, uint).view(dtype)[()]


def special_floats(dtype, kind: str = WHOLE) -> np.ndarray:
    """The special values of a float `dtype` (float16, bfloat16, float32, float64)."""
    dtype = np.dtype(dtype)
    info = float_info(dtype)
    values = [
        np.nan, -np.nan, _nan_with_payload(dtype, 0x15, False),
        _nan_with_payload(dtype, 0x2A, True), np.inf, -np.inf, 0.0, -0.0,
        info.smallest_subnormal, -info.smallest_subnormal,
        info.smallest_normal, -info.smallest_normal,
        0.5, -0.5, 1.5, -2.5, 1.0, -1.0, 3.0, 7.25,
    ]  # fmt: skip
    if kind == WHOLE:
        values += [info.max, -info.max, 65504.0, -65504.0, 65520.0]
        values += [2.0**24 + 2, 2.0**53 + 2, -(2.0**31), 2.0**31, 2.0**63, 300.5]
    with np.errstate(over="ignore"):
        return np.array(values, dtype)


def special_ints(dtype) -> np.ndarray:
    """Minimum, maximum, zero, +-1 and small values of an integer `dtype`."""
    info = np.iinfo(dtype)
    values = [info.min, info.max, 0, 1, info.max - 1, 2, 7]
    if info.min < 0:
        values += [-1, info.min + 1, -7]
    return np.array(values, dtype)


def random_bits(rng: np.random.Generator, dtype, size: int) -> np.ndarray:
    """`size` values of `dtype` with uniformly random bit patterns (every
    exponent equally likely: the whole value space)."""
    dtype = np.dtype(dtype)
    words = rng.integers(0, 2 ** (8 * dtype.itemsize), size, dtype=np.uint64)
    return words.astype(f"u{dtype.itemsize}").view(dtype)


def special_array(
    rng: np.random.Generator, dtype, shape: Sequence[int], kind: str = WHOLE
) -> np.ndarray:
    """An array of `shape` whose elements are special values, random bit
    patterns (WHOLE) and ordinary values, mixed."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        return rng.integers(0, 2, size).astype(bool).reshape(shape)
    if np.issubdtype(dtype, np.integer):
        pool = np.concatenate(
            [special_ints(dtype), rng.integers(-9, 9, 8).astype(dtype)]
        )
        return rng.choice(pool, size).reshape(shape)
    specials = special_floats(dtype, kind)
    ordinary = (rng.standard_normal(size) * 3).astype(dtype)
    which = rng.integers(0, 3, size)
    out = np.where(which == 0, rng.choice(specials, size), ordinary)
    if kind == WHOLE:
        out = np.where(which == 1, random_bits(rng, dtype, size), out)
    return out.astype(dtype).reshape(shape)


class RandomPick(_RandomPick):
    """opaque_variants' numpy pick, with arrays of special values."""

    def array(self, dtype, shape: Sequence[int], kind: str = WHOLE) -> np.ndarray:
        return special_array(self.rng, dtype, shape, kind)
