"""Lowering of nn.resize (nearest and linear over the two spatial dims) to tosa.resize.

TOSA samples output position o of an axis at input coordinate (o * d + offset) / n
in integers: a scale out / in = p / q (reduced) is n = 2p, d = 2q, and each ONNX
coordinate mode is an offset (half_pixel: q - p; asymmetric: 0; align_corners:
the scale (out - 1) / (in - 1)). TOSA's nearest rounds a half up; the other
ONNX rounding modes move the offset (round_prefer_floor: -1, floor: -n / 2,
ceil: n / 2 - 1), exact since n is even. Border is what the output size leaves.
Bilinear clamps both neighbours to the input as ONNX's linear mode does.
"""

from __future__ import annotations

from fractions import Fraction

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.resize import ResizeOp
from graph_opt.lowering.lowering_pattern import LoweringPattern
from graph_opt.lowering.tosa_builder import (
    NCHW_TO_NHWC,
    NHWC_TO_NCHW,
    TosaBuilder,
    element_of,
    shape_of,
)
from graph_opt.lowering.tosa_elementwise import is_float

MAX_SCALE = 1 << 11
"""TOSA's bound on scale_n (and 16 * scale_n on scale_d, offset and border)."""

NEAREST_OFFSET = {
    "round_prefer_ceil": lambda n: 0,
    "round_prefer_floor": lambda n: -1,
    "floor": lambda n: -n // 2,
    "ceil": lambda n: n // 2 - 1,
}
"""How far each ONNX rounding mode moves the offset from TOSA's round-half-up."""


def axis_parameters(
    size: int, out: int, coordinates: str, rounding: str | None
) -> tuple[int, int, int, int] | str:
    """TOSA's (scale_n, scale_d, offset, border) for one axis, or why there are none."""
    if coordinates == "align_corners" and size != out:
        if size == 1 or out == 1:
            return "align_corners to or from size 1"
        ratio = Fraction(out - 1, size - 1)
        offset = 0
    else:
        ratio = Fraction(out, size)
        half_pixel = coordinates in ("half_pixel", "pytorch_half_pixel")
        offset = ratio.denominator - ratio.numerator if half_pixel else 0
    n, d = 2 * ratio.numerator, 2 * ratio.denominator
    if rounding is not None:
        offset += NEAREST_OFFSET[rounding](n)
    border = (out - 1) * d - (size - 1) * n + offset
    if not (
        n <= MAX_SCALE
        and d < 16 * n
        and -n <= offset < 16 * n
        and -16 * n <= border < n
    ):
        return f"scale {out}/{size} is out of TOSA's range"
    return n, d, offset, border


class LowerResize(LoweringPattern):
    """nn.resize of the two spatial dims of NCHW or NHWC float data -> tosa.resize."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ResizeOp):
            return
        x, y = op.input, op.output
        shape, out = shape_of(x), shape_of(y)
        if len(shape) != 4 or not is_float(x):
            self.decline(op, "only 4-D float resizes lower to TOSA")
            return
        if shape[:2] == out[:2]:
            to_nhwc, from_nhwc = NCHW_TO_NHWC, NHWC_TO_NCHW
        elif (shape[0], shape[3]) == (out[0], out[3]):
            to_nhwc = from_nhwc = (0, 1, 2, 3)
        else:
            self.decline(op, "TOSA resizes the spatial dims of NCHW or NHWC data only")
            return
        nearest = op.resize_mode == "nearest"
        scale, offset, border = [], [], []
        for axis in to_nhwc[1:3]:
            params = axis_parameters(
                shape[axis],
                out[axis],
                op.coordinate_mode,
                op.rounding if nearest else None,
            )
            if isinstance(params, str):
                self.decline(op, params)
                return
            scale += params[:2]
            offset.append(params[2])
            border.append(params[3])
        b = TosaBuilder()
        x_nhwc = b.transpose(x, to_nhwc)
        mode = "NEAREST_NEIGHBOR" if nearest else "BILINEAR"
        resized = b.add(
            tosa_ext.ResizeOp.build(
                operands=[
                    x_nhwc,
                    b.const_shape(scale),
                    b.const_shape(offset),
                    b.const_shape(border),
                ],
                properties={"mode": tosa_ext.ResizeModeAttr(tosa_ext.ResizeMode(mode))},
                result_types=[TensorType(element_of(x), [out[p] for p in to_nhwc])],
            )
        )
        rewriter.replace(op, b.ops, [b.transpose(resized, from_nhwc)])
