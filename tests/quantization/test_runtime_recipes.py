"""The requantization recipes of convert-to-int{recipe=...} against plain
Python-int transcriptions of what TFLite's kernels (kernels/add.cc,
internal/common.h, reduce.cc), ruy and XNNPACK (qs8-vadd scalar,
microparams-init.c, fp32 requantization) compute: the nn ops convert-to-int
builds, run by graph-opt's interpreter, over scales, zero points and values
(ties, saturation, extreme scale ratios)."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, i8, i32
from xdsl.ir import Block, Region

from graph_opt.dialects.nn.elementwise import AddOp
from graph_opt.dialects.nn.pool import GlobalAvgPoolOp
from graph_opt.dialects.nn.qint import DequantizeOp, quantization_props
from graph_opt.interpreter import run_function
from graph_opt.passes.convert_to_int.add import lower_add
from graph_opt.passes.convert_to_int.params import (
    ActivationParams,
    requantize,
    ruy_rescale_channels,
)
from graph_opt.passes.convert_to_int.pool import lower_mean
from graph_opt.quantization.fixed_point import quantize_multiplier
from graph_opt.quantization.runtime_recipes import tflite_multiplier

# Python-int transcriptions of the runtimes' arithmetic


def round_half_away(x: float) -> int:
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def quantize_multiplier_ref(real: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier: (q, exponent), real ~= q * 2^(exponent - 31)."""
    mantissa, exponent = math.frexp(real)
    q = round_half_away(mantissa * (1 << 31))
    if q == 1 << 31:
        q, exponent = q // 2, exponent + 1
    return q, exponent


def srdhm(a: int, b: int) -> int:
    """gemmlowp's SaturatingRoundingDoublingHighMul."""
    if a == b == -(1 << 31):
        return (1 << 31) - 1
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    return (
        int((ab + nudge) / (1 << 31)) if abs(ab) < 1 << 52 else _trunc_div(ab + nudge)
    )


def _trunc_div(x: int) -> int:
    q = abs(x) >> 31
    return q if x >= 0 else -q


def rounding_divide_by_pot(x: int, exponent: int) -> int:
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def mbqm(x: int, q: int, exponent: int) -> int:
    """TFLite's MultiplyByQuantizedMultiplier (gemmlowp, rounding twice)."""
    left, right = max(exponent, 0), max(-exponent, 0)
    return rounding_divide_by_pot(srdhm(x * (1 << left), q), right)


def ruy_multiply(x: int, q: int, exponent: int) -> int:
    """ruy's: the rounding doubling high multiply, then a shift rounding half up."""
    left, right = max(exponent, 0), max(-exponent, 0)
    high = (
        _trunc_div(x * (1 << left) * q + (1 << 30))
        if False
        else ((x * (1 << left) * q + (1 << 30)) >> 31)
    )
    return (high + (1 << (right - 1))) >> right if right else high


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def tflite_add_ref(a, b, sa, sb, so, za, zb, zo) -> int:
    """reference_integer_ops::AddFunc with add.cc's parameters."""
    sa, sb, so = f32(sa), f32(sb), f32(so)
    twice_max = 2 * max(sa, sb)
    qa, ea = quantize_multiplier_ref(sa / twice_max)
    qb, eb = quantize_multiplier_ref(sb / twice_max)
    qo, eo = quantize_multiplier_ref(twice_max / (f32((1 << 20) * so)))
    total = mbqm((a - za) << 20, qa, ea) + mbqm((b - zb) << 20, qb, eb)
    return min(127, max(-128, mbqm(total, qo, eo) + zo))


def xnnpack_add_ref(a, b, sa, sb, so, za, zb, zo) -> int | None:
    """XNNPACK's qs8 vadd (scalar kernel) with xnn_init_qs8_add_minmax params."""
    ra, rb = f32(f32(sa) / f32(so)), f32(f32(sb) / f32(so))
    if not all(2.0**-10 <= r < 2.0**8 for r in (ra, rb)):
        return None
    bits = struct.unpack("I", struct.pack("f", max(ra, rb)))[0]
    shift = 20 - ((bits >> 23) - 127)
    ma, mb = round(ra * 2.0**shift), round(rb * 2.0**shift)  # lrintf: half to even
    bias = (1 << (shift - 1)) - ma * za - mb * zb
    out = (bias + a * ma + b * mb) >> shift
    return min(127, max(-128, out + zo))


# graph-opt's integer ops for the same, run by its interpreter


def run_ops(args, build) -> np.ndarray:
    """Build ops on the i8 (or i32) arguments `args` with `build(block_args)`
    -> (ops, value) and run them."""
    types = [TensorType(i8 if a.dtype == np.int8 else i32, a.shape) for a in args]
    block = Block(arg_types=types)
    ops, value = build(block.args)
    block.add_ops([*ops, func.ReturnOp(value)])
    function = func.FuncOp("main", (types, [value.type]), Region(block))
    return run_function(ModuleOp([function]), list(args))[0]


def graph_add(a, b, sa, sb, so, za, zb, zo, recipe) -> np.ndarray | None:
    def build(args):
        deq = [
            DequantizeOp.create_inferred([v], quantization_props([s], [z]))
            for v, s, z in zip(args, (sa, sb), (za, zb), strict=True)
        ]
        add = AddOp.create_inferred([deq[0].output, deq[1].output])
        lowered = lower_add(add, ActivationParams(so, zo, -128, 127), recipe)
        return lowered if lowered is None else ([*deq, add, *lowered[0]], lowered[1])

    probe = Block(arg_types=[TensorType(i8, a.shape)] * 2)
    if build(probe.args) is None:
        return None
    return run_ops([a, b], build)


scales = st.one_of(
    st.floats(1e-4, 2.0).map(f32),
    st.sampled_from([2.0**-k for k in range(1, 12)] + [3 * 2.0**-8, 0.1, 0.75]),
)
zero_points = st.integers(-128, 127)
int8s = st.lists(st.integers(-128, 127), min_size=1, max_size=64)


@settings(max_examples=60, deadline=None)
@given(a=int8s, b=int8s, sa=scales, sb=scales, so=scales, za=zero_points,
       zb=zero_points, zo=zero_points)  # fmt: skip
@example(
    a=[127, -128, 1, -1],
    b=[127, -128, -1, 1],
    sa=2**-4,
    sb=2**-5,
    so=2**-4,
    za=0,
    zb=0,
    zo=0,
)  # fmt: skip  (exact ties: halves of the output step)
@example(
    a=[127, -128], b=[127, -128], sa=1.0, sb=1.0, so=2**-6, za=-128, zb=127, zo=0
)  # fmt: skip  (saturation)
def test_tflite_add_is_tflites(a, b, sa, sb, so, za, zb, zo):
    n = min(len(a), len(b))
    x, y = np.array(a[:n], np.int8), np.array(b[:n], np.int8)
    got = graph_add(x, y, sa, sb, so, za, zb, zo, "tflite-builtin")
    assume(got is not None)
    want = [
        tflite_add_ref(int(p), int(q), sa, sb, so, za, zb, zo) for p, q in zip(x, y)
    ]
    assert got.tolist() == want


@settings(max_examples=60, deadline=None)
@given(a=int8s, b=int8s, sa=scales, sb=scales, so=scales, za=zero_points,
       zb=zero_points, zo=zero_points)  # fmt: skip
@example(a=[127, -128, 1, -1], b=[127, -128, -1, 1], sa=2**-4, sb=2**-5, so=2**-4,
         za=0, zb=0, zo=0)  # fmt: skip
@example(a=[5], b=[7], sa=2**-10, sb=1.0, so=2**-2, za=3, zb=-3, zo=1)  # fmt: skip
def test_xnnpack_add_is_xnnpacks(a, b, sa, sb, so, za, zb, zo):
    n = min(len(a), len(b))
    x, y = np.array(a[:n], np.int8), np.array(b[:n], np.int8)
    want = [
        xnnpack_add_ref(int(p), int(q), sa, sb, so, za, zb, zo) for p, q in zip(x, y)
    ]
    got = graph_add(x, y, sa, sb, so, za, zb, zo, "xnnpack")
    if want[0] is None:  # a ratio XNNPACK refuses: convert-to-int declines too
        assert got is None
        return
    assert got is not None and got.tolist() == want


def test_the_three_adds_part_on_some_pairs():
    """Over every pair of int8 values, the default recipe's add (each input
    rounded once to a common scale), XNNPACK's and TFLite's AddFunc part on
    some (on many scales the default and XNNPACK's agree on all pairs)."""
    grid = np.arange(-128, 128, dtype=np.int8)
    x, y = (v.ravel() for v in np.meshgrid(grid, grid))
    args = (x, y, 0.02, 0.03, 0.04, 0, 0, 0)
    default, xnnpack, builtin = (
        graph_add(*args, r) for r in ("tosa", "xnnpack", "tflite-builtin")
    )
    assert (default != xnnpack).any() and (default != builtin).any()


accumulators = st.lists(st.integers(-(1 << 24), 1 << 24), min_size=1, max_size=32)
ratios = st.one_of(
    st.floats(2.0**-20, 0.99),
    st.sampled_from([0.5, 0.25, 2.0**-12, 3 * 2.0**-10, 0.75]),
)


@settings(max_examples=80, deadline=None)
@given(acc=accumulators, ratio=ratios, zo=zero_points)
@example(acc=[-2432, -2042, 2042, 12, -12], ratio=2.0**-3 * 0.75, zo=0)  # ties
def test_ruy_requantization_is_ruys(acc, ratio, zo):
    """recipe=tflite-builtin's conv and fully connected: two rescales."""
    values = np.array(acc, np.int32)
    got = run_ops(
        [values],
        lambda args: _last(ruy_rescale_channels(args[0], np.array([ratio]), zo, 0)),
    )
    q, exponent = quantize_multiplier_ref(ratio)
    want = [min(127, max(-128, ruy_multiply(int(v), q, exponent) + zo)) for v in acc]
    assert got.tolist() == want


@settings(max_examples=80, deadline=None)
@given(acc=accumulators, ratio=ratios, zo=zero_points)
@example(acc=[-2432, -2042, 2042, 12, -12], ratio=2.0**-3 * 0.75, zo=0)
def test_double_round_requantization_is_gemmlowps(acc, ratio, zo):
    """DOUBLE_ROUND (TFLite's reference kernels, depthwise convs, adds, means)."""
    values = np.array(acc, np.int32)

    def build(args):
        op = requantize(args[0], np.array([ratio]), zo, fp32=False)
        op.properties["rounding_mode"] = StringAttr("DOUBLE_ROUND")
        return [op], op.output

    got = run_ops([values], build)
    q, exponent = quantize_multiplier_ref(ratio)
    want = [min(127, max(-128, mbqm(int(v), q, exponent) + zo)) for v in acc]
    assert got.tolist() == want


@settings(max_examples=80, deadline=None)
@given(acc=accumulators, ratio=ratios, zo=zero_points)
@example(acc=[1, 3, -1, -3, 5], ratio=0.5, zo=0)  # ties to even
def test_fp32_requantization_is_xnnpacks(acc, ratio, zo):
    """recipe=xnnpack's layers: float32(acc) x float32 scale, rounded half to even."""
    scale = np.float32(ratio)
    values = np.array(acc, np.int32)
    got = run_ops(
        [values], lambda args: _last([requantize(args[0], np.array([scale]), zo, True)])
    )
    products = values.astype(np.float32) * scale  # the float32 product, as C
    want = [min(127, max(-128, int(round(float(p))) + zo)) for p in products]
    assert got.tolist() == want


@settings(max_examples=40, deadline=None)
@given(
    x=st.lists(st.integers(-128, 127), min_size=16, max_size=16),
    si=scales, so=scales, zi=zero_points, zo=zero_points,
    recipe=st.sampled_from(["tflite-builtin", "tflite-reference"]),
)  # fmt: skip
def test_spatial_mean_is_tflites(x, si, so, zi, zo, recipe):
    """A 4-D mean over height and width keeping them: the builtin kernels'
    optimized_integer_ops::Mean, the reference kernels' QuantizedMeanOrSum."""
    values = np.array(x, np.int8).reshape(1, 2, 2, 4)

    def build(args):
        deq = DequantizeOp.create_inferred([args[0]], quantization_props([si], [zi]))
        mean = GlobalAvgPoolOp.create_inferred(
            [deq.output],
            {"data_layout": __import__("xdsl").dialects.builtin.StringAttr("NHWC")},
        )
        lowered = lower_mean(mean, ActivationParams(so, zo, -128, 127), recipe)
        assert lowered is not None
        return [deq, mean, *lowered[0]], lowered[1]

    try:
        tflite_multiplier(f32(si) / f32(so))
    except ValueError:
        assume(False)
    got = run_ops([values], build).reshape(-1)
    sums = values.astype(np.int64).sum(axis=(1, 2)).reshape(-1)
    want = [mean_ref(int(s), si, so, zi, zo, 4, recipe) for s in sums]
    assert got.tolist() == want


def mean_ref(raw_sum, si, so, zi, zo, count, recipe) -> int:
    si, so = f32(si), f32(so)
    if recipe == "tflite-builtin":  # optimized_integer_ops::Mean
        temp = f32(f32(zi * si) / so)
        temp = f32(temp + 0.5) if temp > 0 else f32(temp - 0.5)
        bias = zo - int(temp)
        q, exponent = quantize_multiplier_ref(f32(si / f32(count * so)))
        return min(127, max(-128, mbqm(raw_sum, q, exponent) + bias))
    q, exponent = quantize_multiplier_ref(si / so)  # QuantizedMeanOrSum
    shift = min(count.bit_length() - 1, 32, 31 + exponent)
    q = (q << shift) // count
    out = mbqm(raw_sum - zi * count, q, exponent - shift) + zo
    return min(127, max(-128, out))


def _last(ops):
    assert ops is not None
    return ops, ops[-1].results[0]


@pytest.mark.parametrize("scale", [(2**31 + 1) / 2**32, (2**31 + 3) / 2**33])
def test_multipliers_round_half_away_as_tflites(scale):
    """A mantissa x 2^31 exactly halfway rounds up (std::round), not to even."""
    q, exponent = quantize_multiplier_ref(scale)
    assert quantize_multiplier(scale) == (q, 31 - exponent)
    assert tflite_multiplier(scale) == (q, 31 - exponent)
