"""convert-to-int's integer add, in the requantization recipe of the runtime
that will run it (graph_opt.quantization.runtime_recipes).

    tosa            a, b -> rescale to i32 at 2 x max scale / 2^20 (each
                    rounding once) -> add -> rescale to the output
    tflite-builtin  a, b -> rescale to i32 x 2^20 (exact) -> rescale by
                    scale / (2 x max scale) (DOUBLE_ROUND) -> add -> rescale
                    to the output (DOUBLE_ROUND): TFLite's AddFunc
    xnnpack         a, b -> rescale to i32 x XNNPACK's integer multiplier
                    (exact) -> add -> one rounding shift to the output
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import i32
from xdsl.ir import Operation, SSAValue

from graph_opt.dialects.nn.elementwise import AddOp
from graph_opt.passes.convert_to_int.params import (
    ActivationParams,
    IntValue,
    fixed_rescale,
    int_value_of,
    rescale,
)
from graph_opt.quantization.runtime_recipes import (
    TFLITE_ADD_LEFT_SHIFT,
    TFLITE_KERNELS,
    tflite_add,
    xnnpack_add,
)

EXACT_SHIFT = 10
"""A rescale multiplying an int8 value by an integer k exactly: multiplier
k x 2^10, shift 10 (|value - zero point| < 2^9, apply_scale_32's range)."""
DOUBLE_ROUND = "DOUBLE_ROUND"


def times(side: IntValue, factor: int) -> Operation:
    """(value - zero point) x factor as i32, exactly."""
    multiplier = np.array([factor << EXACT_SHIFT])
    return fixed_rescale(
        side.value, multiplier, np.array([EXACT_SHIFT]), side.zero_point, 0, i32
    )


def lower_add(
    op: AddOp, params: ActivationParams, recipe: str = "tosa"
) -> tuple[list[Operation], SSAValue] | None:
    """The int8 add of two int8 values, requantized to `params` as `recipe` does."""
    lhs, rhs = int_value_of(op.lhs), int_value_of(op.rhs)
    if lhs is None or rhs is None:
        return None  # an operand is not int8
    if recipe == "xnnpack":
        return _xnnpack_add(lhs, rhs, params)
    if recipe in TFLITE_KERNELS:
        return _tflite_add(lhs, rhs, params)
    return _tosa_add(lhs, rhs, params)


def _finish(
    ops: list[Operation],
    sides: tuple[SSAValue, SSAValue],
    params: ActivationParams,
    output: tuple[int, int],
    mode: str,
) -> tuple[list[Operation], SSAValue]:
    """`ops`, then the add of the two i32 `sides` and its rescale to `params`."""
    total = AddOp.create_inferred(list(sides))
    out = fixed_rescale(
        total.output, np.array([output[0]]), np.array([output[1]]),
        0, params.zero_point, rounding_mode=mode,
    )  # fmt: skip
    return [*ops, total, out], out.output


def _xnnpack_add(lhs: IntValue, rhs: IntValue, params: ActivationParams):
    recipe = xnnpack_add(lhs.scale, rhs.scale, params.scale)
    if recipe is None:
        return None  # a scale ratio XNNPACK does not take
    ops = [times(lhs, recipe.lhs[0]), times(rhs, recipe.rhs[0])]
    sides = (ops[0].results[0], ops[1].results[0])
    # (sum x 2^30 + 2^(29 + shift)) >> (30 + shift): XNNPACK's rounding shift
    output = (1 << 30, 30 + recipe.output[1])
    return _finish(ops, sides, params, output, "SINGLE_ROUND")


def _tflite_add(lhs: IntValue, rhs: IntValue, params: ActivationParams):
    try:
        recipe = tflite_add(lhs.scale, rhs.scale, params.scale)
    except ValueError:
        return None  # the output ratio has no multiplier and shift
    ops: list[Operation] = []
    for side, (multiplier, shift) in ((lhs, recipe.lhs), (rhs, recipe.rhs)):
        ops.append(times(side, 1 << TFLITE_ADD_LEFT_SHIFT))
        ops.append(
            fixed_rescale(
                ops[-1].results[0],
                np.array([multiplier]),
                np.array([shift]),
                0,
                0,
                i32,
                DOUBLE_ROUND,
            )  # fmt: skip
        )
    sides = (ops[1].results[0], ops[3].results[0])
    return _finish(ops, sides, params, recipe.output, DOUBLE_ROUND)


def _tosa_add(lhs: IntValue, rhs: IntValue, params: ActivationParams):
    common = 2 * max(lhs.scale, rhs.scale) / (1 << TFLITE_ADD_LEFT_SHIFT)
    ops: list[Operation] = []
    for side in (lhs, rhs):
        widened = rescale(
            side.value, np.array([side.scale / common]), side.zero_point, 0, i32
        )
        if widened is None:
            return None  # a ratio has no multiplier and shift
        ops.append(widened)
    total = AddOp.create_inferred([ops[0].results[0], ops[1].results[0]])
    out = rescale(total.output, np.array([common / params.scale]), 0, params.zero_point)
    if out is None:
        return None  # the output scale has no multiplier and shift
    return [*ops, total, out], out.output
