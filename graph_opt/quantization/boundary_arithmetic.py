"""The float boundaries of an int8 graph as each runtime computes them:
nn.quantize's levels and nn.dequantize's floats per `arithmetic`
(graph_opt.dialects.nn.qint.QUANTIZE_ARITHMETIC, DEQUANTIZE_ARITHMETIC).

Read from TFLite's kernels (optimized_ops and reference_ops AffineQuantize
and Dequantize; x86 builds emulate NEON, whose vector loop takes 8 elements
at a time) and XNNPACK's f32-qs8 / qs8-f32 convert, and measured in TFLite
2.21's interpreter element by element."""

from __future__ import annotations

import numpy as np

TFLITE_BLOCK = 8
"""Elements TFLite's builtin QUANTIZE and DEQUANTIZE take per vector step."""
INT32_MIN = -(1 << 31)


def _half_away(values: np.ndarray) -> np.ndarray:
    """std::round: exact in float64 (a float32 + 0.5 may round up)."""
    values = values.astype(np.float64)
    return np.where(values >= 0, np.floor(values + 0.5), np.ceil(values - 0.5))


def _to_int32(values: np.ndarray) -> np.ndarray:
    """A float to int32 conversion on x86: INT32_MIN where out of range or NaN."""
    inside = np.abs(np.nan_to_num(values, nan=np.inf)) < 2.0**31
    return np.where(inside, np.where(inside, values, 0), INT32_MIN).astype(np.int64)


@np.errstate(over="ignore")  # float32 overflows to infinity, as the runtimes'
def quantize_codes(
    x: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray,
    arithmetic: str,
    low: int,
    high: int,
) -> np.ndarray:
    """saturate(level + zero_point) as int64, the level computed per `arithmetic`."""
    x = x.astype(np.float32)
    scale = np.asarray(scale, np.float32)
    if arithmetic == "divide-half-even":
        out = np.clip(np.rint(x / scale) + zero_point, low, high)
        out[np.isnan(out)] = low  # as onnxruntime (numpy's cast of NaN is undefined)
        return out.astype(np.int64)
    if arithmetic == "reciprocal-half-even":  # XNNPACK clamps before rounding
        steps = np.clip(
            x * (np.float32(1) / scale), low - zero_point, high - zero_point
        )
        return (np.rint(steps) + zero_point).astype(np.int64)
    if arithmetic == "divide-half-away":
        levels = _to_int32(_half_away(x / scale))
    else:  # tflite-builtin
        flat = x.ravel()
        reciprocal = np.float32(1.0 / float(scale.ravel()[0]))
        blocks = flat.size - flat.size % TFLITE_BLOCK
        vector = np.rint(flat[:blocks] * reciprocal)
        tail = _half_away(flat[blocks:].astype(np.float64) / float(scale.ravel()[0]))
        levels = _to_int32(np.concatenate([vector, tail])).reshape(x.shape)
    wrapped = (levels + zero_point + (1 << 31)) % (1 << 32) - (1 << 31)  # int32 add
    return np.clip(wrapped, low, high)


def dequantize_values(
    q: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, arithmetic: str
) -> np.ndarray:
    """The float32 values of integer codes `q` per `arithmetic`."""
    scale = np.asarray(scale, np.float32)
    exact = (q.astype(np.int64) - zero_point).astype(np.float32) * scale
    if arithmetic == "exact":
        return exact
    flat, exact = q.ravel().astype(np.float32), exact.ravel()
    offset = np.float32(-int(np.ravel(zero_point)[0]) * float(scale.ravel()[0]))
    blocks = flat.size - flat.size % TFLITE_BLOCK
    vector = flat[:blocks] * scale.ravel()[0] + offset
    return np.concatenate([vector, exact[blocks:]]).reshape(q.shape)
