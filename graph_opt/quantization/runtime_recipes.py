"""How TFLite's runtimes requantize int8 ops, as TOSA-style multipliers and
shifts computed from the tensors' float32 scales the way each runtime does.

Two runtimes run a .tflite file and round differently:

- `xnnpack`: the default interpreter's XNNPACK delegate. Its int8 ADD
  (xnn_init_qs8_add_minmax_scalar_params) takes the ratios a / out and
  b / out in float32, scales both by one power of two so that the larger
  lies in [2^20, 2^21), rounds them to integers (lrintf, half to even) and
  shifts the sum once: (a' * ma + b' * mb + 2^(shift-1)) >> shift.
- `tflite-builtin`: TFLite's own kernels. Every requantization is gemmlowp's
  MultiplyByQuantizedMultiplier, a rounding doubling high multiply then a
  rounding right shift (TOSA's DOUBLE_ROUND; multipliers from
  QuantizeMultiplier, frexp of the double ratio, mantissa rounded half away
  from zero). Its int8 ADD shifts both inputs left by 20, requantizes each by
  scale / (2 x max scale) and the sum by 2 x max scale / (2^20 x out scale).

Shifts here are TOSA's: value * multiplier / 2^shift.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import IntegerType, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue

from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.elementwise import AddOp
from graph_opt.dialects.nn.qint import QConvOp, QMatMulOp, RescaleOp

RECIPES = ("tosa", "xnnpack", "tflite-builtin", "tflite-reference")
"""convert-to-int's requantization recipes; `tosa` rounds once, as before."""
TFLITE_KERNELS = ("tflite-builtin", "tflite-reference")
"""TFLite's own kernels: the builtin (optimized) ones, and the reference ones
(OpResolverType.BUILTIN_REF), which differ in the 4-D spatial MEAN only."""
RECIPE_ATTR = "nn.int8_recipe"
"""The module attribute naming the recipe convert-to-int followed."""
BOUNDARY_ARITHMETIC = {
    "xnnpack": ("reciprocal-half-even", "exact"),
    "tflite-builtin": ("tflite-builtin", "tflite-builtin"),
    "tflite-reference": ("divide-half-away", "exact"),
}
"""(nn.quantize's, nn.dequantize's) `arithmetic` in each runtime's QUANTIZE
and DEQUANTIZE of int8 values (graph_opt.quantization.boundary_arithmetic)."""
TFLITE_ADD_LEFT_SHIFT = 20
XNNPACK_ADD_MULTIPLIER_BITS = 20
XNNPACK_ADD_RATIO_RANGE = (2.0**-10, 2.0**8)
"""The a / out and b / out ratios XNNPACK's int8 ADD takes (others stay builtin)."""


def tflite_multiplier(real: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier of a positive double as (multiplier, TOSA
    shift): the frexp mantissa times 2^31 rounded half away from zero; a
    ratio below 2^-31 gives multiplier 0 (as TFLite's zeroed one)."""
    if not math.isfinite(real) or real <= 0:
        raise ValueError(f"scale must be positive and finite, got {real}")
    mantissa, exponent = math.frexp(real)
    multiplier = math.floor(mantissa * (1 << 31) + 0.5)
    if multiplier == 1 << 31:
        multiplier //= 2
        exponent += 1
    if exponent < -31:
        return 0, 62
    if exponent > 29:
        raise ValueError(f"scale {real} is too large for a shift >= 2")
    return multiplier, 31 - exponent


def tflite_multipliers(reals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pairs = [tflite_multiplier(float(r)) for r in np.ravel(reals)]
    return (
        np.array([m for m, _ in pairs], np.int64),
        np.array([s for _, s in pairs], np.int64),
    )


def f64(scale: float) -> float:
    """A tensor's scale as the runtime reads it: its float32, widened."""
    return float(np.float32(scale))


@dataclass(frozen=True)
class AddRequantization:
    """An int8 ADD's integer recipe: each input's (multiplier, shift), the
    sum's (multiplier, shift), and the left shift each input gets first."""

    lhs: tuple[int, int]
    rhs: tuple[int, int]
    output: tuple[int, int]
    left_shift: int


def tflite_add(lhs: float, rhs: float, out: float) -> AddRequantization:
    """TFLite's builtin int8 ADD (kernels/add.cc, reference_integer_ops::AddFunc)."""
    twice_max = 2 * max(f64(lhs), f64(rhs))
    output = twice_max / float(
        np.float32((1 << TFLITE_ADD_LEFT_SHIFT) * np.float32(out))
    )
    return AddRequantization(
        tflite_multiplier(f64(lhs) / twice_max),
        tflite_multiplier(f64(rhs) / twice_max),
        tflite_multiplier(output),
        TFLITE_ADD_LEFT_SHIFT,
    )


def xnnpack_add(lhs: float, rhs: float, out: float) -> AddRequantization | None:
    """XNNPACK's int8 ADD: integer multipliers of the float32 ratios and one
    shift of the sum (lhs and rhs shifts are 0); None when a ratio is outside
    the range XNNPACK takes (the delegate leaves that ADD to TFLite)."""
    ratios = [np.float32(lhs) / np.float32(out), np.float32(rhs) / np.float32(out)]
    low, high = XNNPACK_ADD_RATIO_RANGE
    if not all(low <= r < high for r in ratios):
        return None
    exponent = math.frexp(float(max(ratios)))[1] - 1
    shift = XNNPACK_ADD_MULTIPLIER_BITS - exponent
    a, b = (int(np.rint(r * np.float32(2.0**shift))) for r in ratios)
    return AddRequantization((a, 0), (b, 0), (1, shift), 0)


XNNPACK_CONVERT_SHIFT = 8
XNNPACK_CONVERT_RATIO_RANGE = (2.0**-8, 2.0**7)
"""The in / out scale ratios XNNPACK's qs8 convert takes (others stay builtin)."""


def int8_requantization(
    recipe: str, in_scale: float, out_scale: float
) -> tuple[int, int]:
    """(multiplier, TOSA shift) of an int8-to-int8 QUANTIZE (the one the
    .tflite export adds for --tflite-input-stats) in `recipe`'s runtime, as
    an nn.rescale rounding once: XNNPACK's qs8 convert (xnn_init_qs8_cvt
    params: lrintf(256 x the float32 ratio), the product plus 128 shifted
    right by 8) where it takes the ratio; else TFLite's Requantize
    (QuantizeMultiplier of the double ratio)."""
    ratio = np.float32(in_scale) / np.float32(out_scale)
    low, high = XNNPACK_CONVERT_RATIO_RANGE
    if recipe == "xnnpack" and low <= ratio <= high:
        multiplier = int(np.rint(np.float32(1 << XNNPACK_CONVERT_SHIFT) * ratio))
        return multiplier, XNNPACK_CONVERT_SHIFT
    return tflite_multiplier(f64(in_scale) / f64(out_scale))


@dataclass(frozen=True)
class MeanRequantization:
    """An int8 MEAN's integer recipe: the sum of the values less `input_zp`,
    times multiplier / 2^shift (rounding twice: gemmlowp's, or ruy's), plus
    `bias` (i32), saturated."""

    multiplier: int
    shift: int
    input_zp: int
    bias: int
    rounding: str = "double"


def tflite_mean(
    in_scale: float, out_scale: float, in_zp: int, out_zp: int, count: int
) -> MeanRequantization:
    """TFLite's int8 MEAN in reference_ops::QuantizedMeanOrSum (every MEAN of
    the reference kernels, and of the builtin ones but the 4-D spatial mean):
    QuantizeMultiplier(in / out), its multiplier times 2^k integer-divided by
    the count, k = min(floor(log2 count), 32, 31 + exponent)."""
    multiplier, shift = tflite_multiplier(f64(in_scale) / f64(out_scale))
    k = min(count.bit_length() - 1, 32, 62 - shift)
    return MeanRequantization((multiplier << k) // count, shift + k, in_zp, out_zp)


SPATIAL_MEAN_BLOCK = 16
"""Channels the builtin spatial MEAN requantizes together in its vector loop."""


def tflite_spatial_mean(
    in_scale: float, out_scale: float, in_zp: int, out_zp: int, count: int,
    channels: int,
) -> MeanRequantization:  # fmt: skip
    """TFLite's builtin (optimized_integer_ops::Mean) int8 MEAN over the
    height and width of a 4-D tensor keeping them: the raw sum times
    QuantizeMultiplier(in / (count x out)) computed in float32, plus
    out_zp - in_zp x in / out (float32, rounded half away from zero). Blocks
    of 16 channels round in its vector loop (NEON, emulated with SSE on x86:
    ruy's rounding), the channels after the last block in its scalar loop
    (gemmlowp's): `rounding` is "ruy" or "double" when all round alike, else
    "mixed"."""
    si, so = np.float32(in_scale), np.float32(out_scale)
    shifted = np.float32(np.float32(in_zp) * si) / so
    offset = int(
        shifted + np.float32(0.5) if shifted > 0 else shifted - np.float32(0.5)
    )
    multiplier, shift = tflite_multiplier(float(si / (np.float32(count) * so)))
    rounding = "mixed"
    if channels % SPATIAL_MEAN_BLOCK == 0:
        rounding = "ruy"
    elif channels < SPATIAL_MEAN_BLOCK:
        rounding = "double"
    return MeanRequantization(multiplier, shift, 0, out_zp - offset, rounding)


def record_recipe(module: ModuleOp, recipe: str) -> None:
    module.attributes[RECIPE_ATTR] = StringAttr(recipe)


def module_recipe(module: ModuleOp) -> str | None:
    """The recipe convert-to-int recorded on `module`; None if none."""
    attr = module.attributes.get(RECIPE_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def layer_accumulator(rescale: RescaleOp) -> Operation | None:
    """The conv or matmul whose accumulator (plus bias) `rescale` reads,
    directly or through ruy's first step; None for other rescales."""
    acc = rescale.input.owner
    if isinstance(acc, RescaleOp) and not is_int8(acc.output):
        acc = acc.input.owner
    if isinstance(acc, AddOp):
        acc = acc.lhs.owner
    return acc if isinstance(acc, QConvOp | QMatMulOp) else None


def runs_on_ruy(acc: Operation) -> bool:
    """Whether TFLite's builtin kernels compute this layer with ruy (conv and
    fully connected; not a depthwise conv)."""
    if isinstance(acc, QConvOp):
        return int_value(acc.properties, "group", 1) == 1
    return isinstance(acc, QMatMulOp)


def in_ruy_chain(rescale: RescaleOp) -> bool:
    """Whether `rescale` is one of ruy's two steps: a rescale to i32 that a
    shift (multiplier 2^30) alone reads, or that shift, reading such a rescale."""
    users = [use.operation for use in rescale.output.uses]
    if not is_int8(rescale.output) and len(users) == 1 and _is_shift(users[0]):
        return True
    high = rescale.input.owner
    return (
        _is_shift(rescale)
        and isinstance(high, RescaleOp)
        and not is_int8(high.input)
        and not is_int8(high.output)
    )


def _is_shift(op: Operation) -> bool:
    return isinstance(op, RescaleOp) and set(op.multipliers.tolist()) == {1 << 30}


def expected_rounding(recipe: str | None, rescale: RescaleOp) -> str | None:
    """How `recipe`'s runtime rounds what `rescale` computes: "single",
    "double" (gemmlowp), "ruy" (a rounding doubling high multiply, then a
    shift rounding half up: two rescales), "fp32" (XNNPACK's float32); None
    where any is the recipe's (the default recipe, XNNPACK's adds and means,
    whose multipliers the recipe fixes)."""
    acc = layer_accumulator(rescale)
    if recipe == "xnnpack":
        return "fp32" if acc is not None else None
    if recipe not in TFLITE_KERNELS:
        return None
    if recipe == "tflite-builtin" and in_ruy_chain(rescale):
        return "ruy"
    if acc is None:
        return "double"
    if recipe == "tflite-builtin":
        return "ruy" if runs_on_ruy(acc) else "double"
    per_channel_fc = rescale.flag("per_channel") and isinstance(acc, QMatMulOp)
    return "single" if per_channel_fc else "double"


def is_int8(value: SSAValue) -> bool:
    t = value.type
    element = getattr(t, "element_type", None)
    return isinstance(element, IntegerType) and element.width.data == 8
