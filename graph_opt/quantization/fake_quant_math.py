"""TensorFlow's FakeQuantWithMinMaxVars arithmetic, in float32 like its kernels
(tensorflow/core/kernels/fake_quant_ops_functor.h), vectorized over channels.

TensorFlow runs its CPU kernels with denormals flushed to zero (FTZ and DAZ),
so every float32 operand and result here goes through `flush`."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

F32 = np.float32


class NudgedRange(NamedTuple):
    """The nudged range of one fake quantization, one entry per channel."""

    min: np.ndarray
    max: np.ndarray
    scale: np.ndarray
    zero_point: np.ndarray
    """The integer level of 0.0 (int32)."""


class GradientMasks(NamedTuple):
    """Straight-through estimator masks of a fake quantization's input."""

    inside: np.ndarray
    below: np.ndarray
    above: np.ndarray


def quant_range(num_bits: int, narrow_range: bool) -> tuple[int, int]:
    """The integer levels [qmin, qmax]: narrow range drops the lowest level."""
    return (1 if narrow_range else 0), (1 << num_bits) - 1


TINY = np.finfo(np.float32).tiny


def flush(values) -> np.ndarray:
    """Denormal float32 values as the zero of their sign (TF's FTZ/DAZ mode)."""
    values = np.asarray(values, dtype=F32)
    return np.where(np.abs(values) < TINY, np.copysign(F32(0), values), values).astype(
        F32
    )


def round_half_away(values: np.ndarray) -> np.ndarray:
    """std::round (half away from zero), exact in float32."""
    magnitude = np.abs(values)
    floor = np.floor(magnitude)
    rounded = floor + (magnitude - floor >= F32(0.5))
    return np.copysign(rounded, values).astype(values.dtype)


def inverse_scale(mins, maxs, num_bits: int, narrow_range: bool) -> np.ndarray:
    """1 / scale as TF computes it: (qmax - qmin) / (max - min), not a reciprocal."""
    qmin, qmax = (F32(q) for q in quant_range(num_bits, narrow_range))
    with np.errstate(divide="ignore", invalid="ignore"):
        return flush((qmax - qmin) / flush(flush(maxs) - flush(mins)))


def nudge(mins, maxs, num_bits: int, narrow_range: bool) -> NudgedRange:
    """TF's Nudge: the range moved so that 0.0 falls exactly on a level."""
    mins = flush(mins)
    maxs = flush(maxs)
    qmin, qmax = (F32(q) for q in quant_range(num_bits, narrow_range))
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = flush(flush(maxs - mins) / (qmax - qmin))
        zero_point_from_min = flush(qmin - flush(mins / scale))
    zero_point = np.where(
        zero_point_from_min < qmin,
        qmin,
        np.where(
            zero_point_from_min > qmax, qmax, round_half_away(zero_point_from_min)
        ),
    )
    # A (0, 0) range has no scale; TF outputs zeros for it.
    zero_point = np.nan_to_num(zero_point, nan=qmin).astype(F32)
    return NudgedRange(
        min=flush((qmin - zero_point) * scale),
        max=flush((qmax - zero_point) * scale),
        scale=scale,
        zero_point=zero_point.astype(np.int32),
    )


def channel_shape(rank: int, axis: int | None) -> tuple[int, ...]:
    """The shape that broadcasts a per-channel vector along `axis` (a scalar when None)."""
    if axis is None:
        return ()
    return tuple(-1 if i == axis else 1 for i in range(rank))


def fake_quant(
    x: np.ndarray,
    mins,
    maxs,
    num_bits: int,
    narrow_range: bool,
    axis: int | None = None,
) -> np.ndarray:
    """FakeQuantWithMinMaxVars (axis None) or ...PerChannel, bit for bit in float32.

    Per tensor TF divides by the scale, per channel it multiplies by the
    separately computed inverse; a (0, 0) range gives zeros.
    """
    x = flush(x)
    nudged = nudge(mins, maxs, num_bits, narrow_range)
    shape = channel_shape(x.ndim, axis)
    low, high = nudged.min.reshape(shape), nudged.max.reshape(shape)
    scale = nudged.scale.reshape(shape)
    inv_scale = inverse_scale(mins, maxs, num_bits, narrow_range)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        quant_zero = np.floor(flush(flush(-nudged.min * inv_scale) + F32(0.5)))
        quant_zero = quant_zero.reshape(shape)
        shifted = flush(np.maximum(np.minimum(x, high), low) - low)
        if axis is None:
            steps = flush(shifted / scale)
        else:
            steps = flush(shifted * inv_scale.reshape(shape))
        out = flush(np.floor(flush(steps - quant_zero) + F32(0.5)) * scale)
    empty = ((flush(mins) == 0) & (flush(maxs) == 0)).reshape(shape)  # TF's (0, 0)
    return np.where(empty, F32(0), out).astype(F32)


def fake_quant_gradient_masks(
    x: np.ndarray,
    mins,
    maxs,
    num_bits: int,
    narrow_range: bool,
    axis: int | None = None,
) -> GradientMasks:
    """Where the gradient flows (straight through) to the input, to min, to max.

    The input gets the gradient inside the nudged range (bounds included),
    min below it, max above it; a (0, 0) range passes everything to the input.
    """
    x = flush(x)
    nudged = nudge(mins, maxs, num_bits, narrow_range)
    shape = channel_shape(x.ndim, axis)
    low, high = nudged.min.reshape(shape), nudged.max.reshape(shape)
    empty = ((nudged.scale == 0) & (np.asarray(mins, dtype=F32) == 0)).reshape(shape)
    below = (x < low) & ~empty
    above = (x > high) & ~empty
    return GradientMasks(inside=~(below | above), below=below, above=above)


def fake_quant_exact(
    x: np.ndarray,
    mins,
    maxs,
    num_bits: int,
    narrow_range: bool,
    axis: int | None = None,
) -> np.ndarray:
    """`fake_quant` of float64 values without float32 rounding: the nudged range
    and scale as TF computes them in float32 (the same levels), each value's
    level as exact arithmetic rounds it (half up, like TF's floor(v + 0.5)) and
    the result exactly level x scale. Ranges with no positive finite scale
    ((0, 0), NaN bounds, ...) keep `fake_quant`'s float32 result."""
    nudged = nudge(mins, maxs, num_bits, narrow_range)
    qmin, qmax = quant_range(num_bits, narrow_range)
    shape = channel_shape(x.ndim, axis)
    scale = nudged.scale.astype(np.float64).reshape(shape)
    zero_point = nudged.zero_point.reshape(shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = x / scale  # correctly rounded: a tie in float64 is an exact tie
        level = np.floor(steps)
        level += steps - level >= 0.5
        out = np.clip(level, qmin - zero_point, qmax - zero_point) * scale
    ordinary = np.isfinite(scale) & (scale > 0)
    if ordinary.all():
        return out
    fallback = fake_quant(x, mins, maxs, num_bits, narrow_range, axis)
    return np.where(ordinary, out, fallback.astype(np.float64))
