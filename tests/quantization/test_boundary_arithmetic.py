"""nn.quantize / nn.dequantize `arithmetic`, run by graph-opt's interpreter,
against plain-Python transcriptions of the runtimes' loops: TFLite's
reference_ops::AffineQuantize, optimized_ops::AffineQuantize and Dequantize
(NEON emulated on x86: 8 elements per vector step, then a scalar tail) and
XNNPACK's f32-qs8-vcvt (scalar: clamp, magic-bias rounding)."""

from __future__ import annotations

import math
import struct

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_opt import api
from graph_opt.interpreter import run_function

INT32_MIN = -(1 << 31)


def f32(x: float) -> float:
    """A double rounded to float32 (to infinity past its range)."""
    if abs(x) >= 2.0**128 * (1 - 2.0**-25):
        return math.copysign(math.inf, x)
    return struct.unpack("f", struct.pack("f", x))[0]


def half_even(x: float) -> float:
    return float(round(x)) if math.isfinite(x) else x


def std_round(x: float) -> float:
    return math.copysign(math.floor(abs(x) + 0.5), x) if math.isfinite(x) else x


def cast_int32(x: float) -> int:
    """static_cast<int32_t> / cvt on x86: INT32_MIN when out of range."""
    return int(x) if math.isfinite(x) and abs(x) < 2.0**31 else INT32_MIN


def saturate(level: int, zero_point: int) -> int:
    total = (level + zero_point + (1 << 31)) % (1 << 32) - (1 << 31)  # int32 add
    return min(max(total, -128), 127)


def reference_quantize(xs, scale, zp):
    return [saturate(cast_int32(std_round(f32(x / scale))), zp) for x in xs]


def xnnpack_quantize(xs, scale, zp):
    inverse = f32(1.0 / scale)
    clamped = [min(max(f32(x * inverse), -128.0 - zp), 127.0 - zp) for x in xs]
    return [round(v) + zp for v in clamped]  # round(): half to even


def builtin_quantize(xs, scale, zp):
    inverse, blocks = f32(1.0 / scale), len(xs) - len(xs) % 8
    vector = [cast_int32(half_even(f32(x * inverse))) for x in xs[:blocks]]
    tail = [cast_int32(std_round(x / scale)) for x in xs[blocks:]]
    return [saturate(level, zp) for level in vector + tail]


def builtin_dequantize(qs, scale, zp):
    offset, blocks = f32(-zp * scale), len(qs) - len(qs) % 8
    vector = [f32(f32(q * scale) + offset) for q in qs[:blocks]]
    return vector + [f32((q - zp) * scale) for q in qs[blocks:]]


QUANTIZE = {
    "divide-half-away": reference_quantize,
    "reciprocal-half-even": xnnpack_quantize,
    "tflite-builtin": builtin_quantize,
}


def run(size, scale, zp, quantize, dequantize, x):
    s = repr(scale)
    t, q = f"tensor<{size}xf32>", f"tensor<{size}xi8>"
    params = f"scale = array<f32: {s}>, zero_point = array<i64: {zp}>"
    module = api.parse(f"""
      func.func @main(%x: {t}) -> ({q}, {t}) {{
        %q = nn.quantize %x {{{params}, arithmetic = "{quantize}"}} : ({t}) -> {q}
        %d = nn.dequantize %q {{{params}, arithmetic = "{dequantize}"}} : ({q}) -> {t}
        func.return %q, %d : {q}, {t}
      }}""")
    return run_function(module, [np.array(x, np.float32)])


scales = st.floats(2.0**-13, 1.0, width=32)
zero_points = st.integers(-128, 127)


@st.composite
def cases(draw):
    """A scale, a zero point and inputs on, beside and far from its ties."""
    scale, zp = draw(scales), draw(zero_points)
    size = draw(st.integers(1, 27))
    levels = st.integers(-300, 300).map(float)
    nudges = st.sampled_from([0.5, -0.5, 0.0, 0.49999997, 0.50000006, 0.25])
    tie = st.tuples(levels, nudges).map(lambda p: f32((p[0] + p[1]) * scale))
    anything = st.floats(width=32, allow_nan=False)
    return scale, zp, draw(st.lists(tie | anything, min_size=size, max_size=size))


@settings(max_examples=150, deadline=None)
@given(cases(), st.sampled_from(sorted(QUANTIZE)))
def test_quantize_is_the_runtimes(case, arithmetic):
    scale, zp, xs = case
    codes, _ = run(len(xs), scale, zp, arithmetic, "exact", xs)
    assert codes.tolist() == QUANTIZE[arithmetic](xs, scale, zp)


@settings(max_examples=150, deadline=None)
@given(cases())
def test_builtin_dequantize_is_the_runtimes(case):
    scale, zp, xs = case
    codes, floats = run(len(xs), scale, zp, "tflite-builtin", "tflite-builtin", xs)
    want = builtin_dequantize(codes.tolist(), scale, zp)
    assert floats.tolist() == want
