"""convert-to-int's integer means and average pools.

nn.reduce_mean and nn.global_avg_pool of an int8 value are computed as
TFLite's int8 MEAN (and TensorFlow's TOSA legalization of it): the values less
their zero point summed in i32, then rescaled once by input scale / (count x
output scale) to the output's int8. One rounding, so the result is the
fake-quantized float mean's within one output step.

A windowed nn.avg_pool (2-D, padding not counted) becomes nn.qavg_pool, TOSA
AVG_POOL2D on int8 at the input's scale, then an nn.rescale to the output's
scale when it differs (a second rounding, as TOSA's int8 average pool has one
scale).
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import i8, i32
from xdsl.ir import Operation, SSAValue

from graph_opt.dialects.nn.base import (
    i64_array,
    i64_attr,
    int_list,
    int_value,
    str_value,
)
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.elementwise import AddOp
from graph_opt.dialects.nn.layout import spatial_axes
from graph_opt.dialects.nn.pool import AvgPoolOp, GlobalAvgPoolOp
from graph_opt.dialects.nn.qpool import QAvgPoolOp
from graph_opt.dialects.nn.reduce import ReduceMeanOp, ReduceSumOp, reduced_axes
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.passes.convert_to_int.params import (
    ActivationParams,
    IntValue,
    fixed_rescale,
    int_value_of,
    rescale,
    ruy_steps,
)
from graph_opt.quantization.runtime_recipes import (
    TFLITE_KERNELS,
    MeanRequantization,
    tflite_mean,
    tflite_spatial_mean,
)
from graph_opt.remarks import warn

INT8_SPAN = 255
"""The largest |value - zero point| of an int8 value."""
I32_LIMIT = 1 << 31

MEAN_OPS = (ReduceMeanOp, GlobalAvgPoolOp)
DOUBLE_ROUND = "DOUBLE_ROUND"


def mean_axes(
    op: ReduceMeanOp | GlobalAvgPoolOp, rank: int
) -> tuple[tuple[int, ...], bool]:
    """The axes a mean reduces and whether it keeps them (as size 1)."""
    if isinstance(op, GlobalAvgPoolOp):
        return tuple(spatial_axes(op.layout, rank)), True
    return reduced_axes(op.properties, rank), op.keeps_dims


def lower_mean(
    op: ReduceMeanOp | GlobalAvgPoolOp, params: ActivationParams, recipe: str = "tosa"
) -> tuple[list[Operation], SSAValue] | None:
    """The int8 mean of an int8 value, requantized to `params` as `recipe` says."""
    x = int_value_of(op.operands[0])
    shape = None if x is None else ranked(x.value)
    if x is None or shape is None:
        return None  # not a ranked int8 value
    dims = shape.get_shape()
    axes, keep = mean_axes(op, len(dims))
    if not axes or any(dims[a] == DYN for a in axes):
        return None  # nothing reduced, or an unknown count
    count = math.prod(dims[a] for a in axes)
    if count * INT8_SPAN >= I32_LIMIT:
        return None  # the i32 sum could overflow
    if recipe in TFLITE_KERNELS:
        spatial = len(dims) == 4 and sorted(axes) == [1, 2] and keep
        zero_points = x.zero_point, params.zero_point
        try:
            if spatial and recipe == "tflite-builtin":
                mean = tflite_spatial_mean(
                    x.scale, params.scale, *zero_points, count, dims[3]
                )
            else:
                mean = tflite_mean(x.scale, params.scale, *zero_points, count)
        except ValueError:
            return None  # the ratio has no multiplier and shift
        if mean.rounding == "mixed":
            warn(f"convert-to-int: a mean over {dims[3]} channels: TFLite's builtin "
                 "MEAN rounds the channels after the last multiple of 16 otherwise "
                 "(gemmlowp, not ruy): those may differ by a step")  # fmt: skip
        return _summed(x, axes, keep, count, mean, params.zero_point)
    widened = rescale(x.value, np.array([1.0]), x.zero_point, 0, i32)
    assert widened is not None  # 1.0 is 2^30 >> 30
    total = ReduceSumOp.create_inferred(
        [widened.output], {"axes": i64_array(axes), "keepdims": i64_attr(int(keep))}
    )
    out = rescale(
        total.output, np.array([x.scale / (count * params.scale)]), 0, params.zero_point
    )
    if out is None or count * INT8_SPAN >= 1 << (int(out.shifts[0]) - 1):
        return None  # no multiplier and shift, or a sum beyond apply_scale_32's range
    return [widened, total, out], out.output


def _summed(
    x: IntValue,
    axes,
    keep: bool,
    count: int,
    mean: MeanRequantization,
    output_zp: int,
) -> tuple[list[Operation], SSAValue] | None:
    """TFLite's MEAN: the i32 sum of x less `mean.input_zp`, rescaled (rounding
    twice: gemmlowp's, or ruy's two rescales); a bias other than the output
    zero point is an i32 add before saturating.

        rescale to i32 -> reduce_sum -> rescale (output zero point)
        rescale to i32 -> reduce_sum -> rescale(s) to i32 -> add (bias - output
            zero point) -> rescale to i8 (output zero point)
    """
    if count * INT8_SPAN >= 1 << (mean.shift - 1):
        return None  # a sum beyond apply_scale_32's range
    unit = np.array([1 << 30]), np.array([30])
    widened = fixed_rescale(x.value, *unit, mean.input_zp, 0, i32)
    total = ReduceSumOp.create_inferred(
        [widened.output], {"axes": i64_array(axes), "keepdims": i64_attr(int(keep))}
    )
    scaled = np.array([mean.multiplier]), np.array([mean.shift])
    if mean.bias == output_zp:
        out = fixed_rescale(total.output, *scaled, 0, mean.bias, i8, DOUBLE_ROUND)
        return [widened, total, out], out.output
    if mean.rounding in ("ruy", "mixed"):
        steps = ruy_steps(total.output, *scaled, 0, i32)
    else:
        steps = [fixed_rescale(total.output, *scaled, 0, 0, i32, DOUBLE_ROUND)]
    bias = ConstantOp.from_array(np.array(mean.bias - output_zp, np.int32))
    biased = AddOp.create_inferred([steps[-1].results[0], bias.output])
    out = fixed_rescale(biased.output, *unit, 0, output_zp, i8)
    return [widened, total, *steps, bias, biased, out], out.output


def lower_avg_pool(
    op: AvgPoolOp, params: ActivationParams
) -> tuple[list[Operation], SSAValue] | None:
    """nn.qavg_pool of an int8 value, rescaled to `params` unless at its scale."""
    x = int_value_of(op.input)
    shape = None if x is None else ranked(x.value)
    if x is None or shape is None or len(shape.get_shape()) != 4:
        return None  # not a 2-D int8 value (TOSA pools are 2-D)
    padded = any(int_list(op.properties, "pads") or ()) or "SAME" in str_value(
        op.properties, "auto_pad", ""
    )
    if padded and int_value(op.properties, "count_include_pad", 0):
        return None  # TOSA's average does not count padding
    same_scale = x.scale == params.scale
    props = dict(op.properties)
    props.pop("count_include_pad", None)
    props["input_zp"] = i64_attr(x.zero_point)
    props["output_zp"] = i64_attr(params.zero_point if same_scale else x.zero_point)
    pool = QAvgPoolOp.create_inferred([x.value], props)
    if same_scale:
        return [pool], pool.output
    out = rescale(
        pool.output, np.array([x.scale / params.scale]), x.zero_point, params.zero_point
    )
    return None if out is None else ([pool, out], out.output)
