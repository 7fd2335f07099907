"""Whether an int8 graph's requantizations are what TFLite will compute.

A .tflite file carries only the tensors' scales: each runtime derives its
own multipliers from them (graph_opt.quantization.runtime_recipes). The
export warns, naming the op, where the graph's rescales are not those of
the runtime its recipe (`convert-to-int{recipe=...}`, the module attribute
`nn.int8_recipe`) names, or, with no recipe recorded, of either runtime."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from xdsl.ir import Operation

from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.qint import QuantizationOp, QuantizeOp, RescaleOp
from graph_opt.formats.tflite.exporter import TFLiteExporter
from graph_opt.quantization.runtime_recipes import (
    BOUNDARY_ARITHMETIC,
    TFLITE_ADD_LEFT_SHIFT,
    TFLITE_KERNELS,
    AddRequantization,
    MeanRequantization,
    expected_rounding,
    is_int8,
    tflite_add,
    tflite_mean,
    tflite_spatial_mean,
    xnnpack_add,
)
from graph_opt.remarks import warn

Step = tuple[int, int, bool]
"""One rescale as the runtime computes it: multiplier, shift, rounding twice."""
EXACT_SHIFT = 10
RUNTIMES = {"xnnpack": "the default interpreter (XNNPACK)",
            "tflite-builtin": "the builtin kernels",
            "tflite-reference": "the reference kernels (BUILTIN_REF)"}  # fmt: skip


def step(rescale: RescaleOp) -> Step:
    """A rescale's (multiplier, shift, double rounding where it changes anything)."""
    multiplier, shift = int(rescale.multipliers[0]), int(rescale.shifts[0])
    return multiplier, shift, rescale.rounding == "DOUBLE_ROUND" and shift > 31


def exact(factor: int) -> Step:
    return factor << EXACT_SHIFT, EXACT_SHIFT, False


def add_steps(recipe: str, scales: Sequence[float]) -> list[Step] | None:
    """The rescales of an integer add as `recipe`'s runtime computes them:
    lhs's, rhs's, then the output's; None when that runtime has no such ADD."""
    try:
        r: AddRequantization | None = (
            xnnpack_add(*scales) if recipe == "xnnpack" else tflite_add(*scales)
        )
    except ValueError:
        return None
    if r is None:
        return None
    if recipe == "xnnpack":
        out = (1 << 30, 30 + r.output[1], False)
        return [exact(r.lhs[0]), exact(r.rhs[0]), out]
    sides = [
        [exact(1 << TFLITE_ADD_LEFT_SHIFT), (m, s, s > 31)] for m, s in (r.lhs, r.rhs)
    ]
    return [*sides[0], *sides[1], (*r.output, r.output[1] > 31)]


def check_add(
    ex: TFLiteExporter,
    op: Operation,
    rescales: Sequence[RescaleOp],
    scales: Sequence[float],
) -> None:
    """Warn unless the add's rescales (lhs's, rhs's, output's) are those
    TFLite's ADD computes in the recorded recipe's runtime (or, with none
    recorded, in either)."""
    actual = [step(r) for r in rescales]
    wanted = [ex.recipe] if ex.recipe in RUNTIMES else list(RUNTIMES)
    if any(add_steps(recipe, scales) == actual for recipe in wanted):
        return
    where = f"nn.add %{ex.name_of(op.results[0])}"
    if ex.recipe in RUNTIMES:
        warn(f"tflite export: {where}: not TFLite's int8 ADD in {RUNTIMES[ex.recipe]} "
             f"(recipe={ex.recipe}); TFLite's results may differ by a step")  # fmt: skip
        return
    warn(f"tflite export: {where}: rounds as no TFLite runtime adds int8 values; "
         "TFLite's results may differ by a step (convert-to-int{recipe=xnnpack} or "
         "{recipe=tflite-builtin} computes what that runtime does)")  # fmt: skip


def actual_rounding(rescale: RescaleOp) -> str:
    """How the graph rounds what `rescale` (and ruy's first step, if it is
    one's second) computes."""
    if rescale.rounding == "FP32_HALF_EVEN":
        return "fp32"
    high = rescale.input.owner
    if isinstance(high, RescaleOp) and not is_int8(high.output):
        return "ruy"
    twice = rescale.rounding == "DOUBLE_ROUND" and max(rescale.shifts) > 31
    return "double" if twice else "single"


def check_rounding(ex: TFLiteExporter, rescale: RescaleOp) -> None:
    """Warn when a rescale rounds otherwise than the recipe's runtime."""
    expected = expected_rounding(ex.recipe, rescale)
    actual = actual_rounding(rescale)
    if expected is None or actual == expected:
        return
    if {actual, expected} <= {"single", "double"} and max(rescale.shifts) <= 31:
        return  # the two agree where the shift is at most 31
    name = ex.name_of(rescale.output)
    warn(f"tflite export: nn.rescale %{name}: rounds {actual}, not {expected} as "
         f"{RUNTIMES[ex.recipe]} (recipe={ex.recipe}); TFLite's results may differ "
         "by a step")  # fmt: skip


def ir_mean(
    widen: RescaleOp, steps: Sequence[RescaleOp], last: RescaleOp, offset: int
) -> MeanRequantization:
    """The recipe of a MEAN as the graph computes it: the sum of the widened
    values rescaled by `steps` (one, or ruy's two), plus `offset`, plus
    `last`'s output zero point."""
    first = steps[0]
    multiplier, shift = int(first.multipliers[0]), int(first.shifts[0])
    if len(steps) == 2:
        shift, rounding = shift + int(steps[1].shifts[0]) - 30, "ruy"
    else:
        twice = first.rounding == "DOUBLE_ROUND" or shift <= 31
        rounding = "double" if twice else "single"
    return MeanRequantization(
        multiplier, shift, int_value(widen.properties, "input_zp", 0),
        offset + int_value(last.properties, "output_zp", 0), rounding,
    )  # fmt: skip


def check_mean(
    ex: TFLiteExporter,
    op: Operation,
    mean: MeanRequantization,
    x_tensor: int,
    out_tensor: int,
    axes: np.ndarray,
    keep: bool,
) -> None:
    """Warn, with a recipe of TFLite's kernels recorded, unless the MEAN is
    the one those kernels compute from its tensors' parameters."""
    if ex.recipe not in TFLITE_KERNELS:
        return
    x, out = ex.graph.tensors[x_tensor], ex.graph.tensors[out_tensor]
    assert x.quantization is not None and out.quantization is not None
    count = int(np.prod([x.shape[a] for a in axes]))
    spatial = len(x.shape) == 4 and sorted(axes.tolist()) == [1, 2] and keep
    parameters = (
        float(x.quantization.scales[0]), float(out.quantization.scales[0]),
        x.quantization.zero_point, out.quantization.zero_point, count,
    )  # fmt: skip
    if spatial and ex.recipe == "tflite-builtin":
        expected = tflite_spatial_mean(*parameters, x.shape[3])
        if expected.rounding == "mixed":  # convert-to-int warned of it
            expected = replace(expected, rounding="ruy")
    else:
        expected = tflite_mean(*parameters)
    if expected == mean:
        return
    where = f"nn.reduce_sum %{ex.name_of(op.results[0])}"
    warn(f"tflite export: {where}: not TFLite's int8 MEAN in {RUNTIMES[ex.recipe]} "
         f"(recipe={ex.recipe}); TFLite's results may differ by a step")  # fmt: skip


def check_boundary(ex: TFLiteExporter, op: QuantizationOp) -> None:
    """Warn, with a recipe recorded, when a QUANTIZE or DEQUANTIZE does not
    compute as that recipe's runtime does (its `arithmetic`)."""
    if ex.recipe not in RUNTIMES:
        return
    wanted = BOUNDARY_ARITHMETIC[ex.recipe][0 if isinstance(op, QuantizeOp) else 1]
    if op.arithmetic_name == wanted:
        return
    value = op.results[0] if isinstance(op, QuantizeOp) else op.operands[0]
    warn(f"tflite export: {op.name} %{ex.name_of(value)}: computes {op.arithmetic_name!r}, "
         f"not {wanted!r} as {RUNTIMES[ex.recipe]} (recipe={ex.recipe}); TFLite's "
         "results may differ by a step")  # fmt: skip
