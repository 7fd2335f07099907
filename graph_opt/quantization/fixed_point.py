"""Fixed-point arithmetic of integer inference: scales as multiplier and shift,
and TOSA's apply_scale (the reference for nn.rescale)."""

from __future__ import annotations

import math

import numpy as np

MIN_SHIFT, MAX_SHIFT = 2, 62


def quantize_multiplier(real_scale: float, scale32: bool = True) -> tuple[int, int]:
    """(multiplier, shift) with real_scale ~= multiplier * 2^-shift, as TFLite and
    TOSA compute them: a 31-bit (15-bit without `scale32`) mantissa rounded
    half away from zero (std::round), shift capped at 62 by shifting the
    multiplier down."""
    if not math.isfinite(real_scale) or real_scale <= 0:
        raise ValueError(f"scale must be positive and finite, got {real_scale}")
    bits = 31 if scale32 else 15
    mantissa, exponent = math.frexp(real_scale)
    multiplier = math.floor(mantissa * (1 << bits) + 0.5)
    if multiplier == 1 << bits:
        multiplier //= 2
        exponent += 1
    shift = bits - exponent
    if shift > MAX_SHIFT:
        multiplier >>= min(bits, shift - MAX_SHIFT)
        shift = MAX_SHIFT
    if shift < MIN_SHIFT:
        raise ValueError(f"scale {real_scale} is too large for a shift >= {MIN_SHIFT}")
    return multiplier, shift


def quantize_multipliers(
    real_scales: np.ndarray, scale32: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """quantize_multiplier over a vector of scales: (multipliers, shifts) as int64."""
    pairs = [quantize_multiplier(float(s), scale32) for s in np.ravel(real_scales)]
    return (
        np.array([m for m, _ in pairs], dtype=np.int64),
        np.array([s for _, s in pairs], dtype=np.int64),
    )


def apply_scale(
    values: np.ndarray,
    multiplier: np.ndarray,
    shift: np.ndarray,
    double_round: bool = False,
) -> np.ndarray:
    """TOSA apply_scale_32 / apply_scale_16 on int64 values (broadcasting):
    (v * m + round) >> shift, round = 2^(shift-1), +-2^30 more when double
    rounding with shift > 31. Returns int64; the caller saturates."""
    values = np.asarray(values, dtype=np.int64)
    multiplier = np.asarray(multiplier, dtype=np.int64)
    shift = np.asarray(shift, dtype=np.int64)
    rounding = np.left_shift(np.int64(1), shift - 1)
    if double_round:
        extra = np.where(values >= 0, np.int64(1 << 30), np.int64(-(1 << 30)))
        rounding = rounding + np.where(shift > 31, extra, np.int64(0))
    return np.right_shift(values * multiplier + rounding, shift)


def apply_scale_fp32(
    values: np.ndarray, multiplier: np.ndarray, shift: np.ndarray
) -> np.ndarray:
    """XNNPACK's fp32 requantization (nn.rescale FP32_HALF_EVEN): values as
    float32 times the float32 multiplier * 2^-shift, the float32 product
    rounded half to even. Returns int64; the caller saturates."""
    scale = np.ldexp(np.asarray(multiplier, np.float64), -np.asarray(shift)).astype(
        np.float32
    )
    product = np.asarray(values).astype(np.float32) * scale
    return np.rint(product).astype(np.int64)


def fp32_multiplier(scale: np.float32) -> tuple[int, int]:
    """A positive normal float32 as (24-bit mantissa, shift): exactly m * 2^-shift."""
    mantissa, exponent = math.frexp(float(scale))
    return int(mantissa * (1 << 24)), 24 - exponent


def scale32_in_range(values: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """TOSA apply_scale_32's REQUIRE: -2^(shift-1) <= value < 2^(shift-1)."""
    limit = np.left_shift(np.int64(1), np.asarray(shift, dtype=np.int64) - 1)
    return (values >= -limit) & (values < limit)


def reciprocal_scale(count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TOSA reciprocal_scale: (multiplier, shift) of 1 / count for counts >= 1,
    k = ceil(log2(count)), multiplier = ((2^30 + 1) << k) // count, shift = 30 + k."""
    count = np.asarray(count, dtype=np.int64)
    k = np.array([int(c - 1).bit_length() for c in count.ravel()], np.int64)
    k = k.reshape(count.shape)
    multiplier = np.left_shift(np.int64((1 << 30) + 1), k) // count
    return multiplier, 30 + k
