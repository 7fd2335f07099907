"""Integer (quantized) ops: quantize, dequantize, integer conv, transposed conv
and matmul, rescale.

Their semantics follow ONNX QuantizeLinear/DequantizeLinear and TOSA 1.0
(CONV2D/DEPTHWISE_CONV2D/TRANSPOSE_CONV2D/MATMUL with zero points, RESCALE),
so each maps onto one TOSA op (plus constants and layout transposes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    f32,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import (
    GENERIC_FORMAT,
    NNOperation,
    PropertyDefaults,
    check_flag,
    i64_attr,
    int_value,
    str_value,
)
from graph_opt.dialects.nn.conv import ConvolutionBase, ConvOp, ConvTransposeOp
from graph_opt.dialects.nn.linalg import MatMulOp
from graph_opt.dialects.nn.quant import f32_array, f32_values
from graph_opt.dialects.nn.shapes import (
    DYN,
    dims_compatible,
    normalize_axis,
    ranked,
    tensor_type,
)

ROUNDING_MODES = ("SINGLE_ROUND", "DOUBLE_ROUND", "FP32_HALF_EVEN")
FP32_MANTISSA_LIMIT = 1 << 24
"""An FP32_HALF_EVEN multiplier is a float32 mantissa: below 2^24."""
MIN_SHIFT, MAX_SHIFT = 2, 62
QUANTIZE_ARITHMETIC = (
    "divide-half-even", "reciprocal-half-even", "divide-half-away", "tflite-builtin",
)  # fmt: skip
"""How nn.quantize computes its levels (`arithmetic`; the first is the default):
ONNX's round_half_even(x / scale); XNNPACK's round_half_even(x * (1 / scale));
TFLite's reference kernel's round_half_away(x / scale), all in float32; TFLite's
builtin kernel: blocks of 8 elements (in flat order) as XNNPACK, the last
size mod 8 as round_half_away(x / scale) in double; out of int32 range, the
TFLite kernels' conversion gives INT32_MIN before the zero point is added."""
DEQUANTIZE_ARITHMETIC = ("exact", "tflite-builtin")
"""How nn.dequantize computes (`arithmetic`; the first is the default): ONNX's
(q - zero_point) * scale, rounded once to float32; TFLite's builtin kernel:
blocks of 8 elements as q * scale + (-zero_point * scale), each term and the
sum rounded to float32, the last size mod 8 exactly."""


def int_range(element_type: Attribute, unsigned: bool = False) -> tuple[int, int]:
    """The values an integer type holds, read as unsigned when `unsigned` (or ui*)."""
    assert isinstance(element_type, IntegerType)
    width = element_type.width.data
    if unsigned or element_type.signedness.data == Signedness.UNSIGNED:
        return 0, (1 << width) - 1
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def is_unsigned(element_type: Attribute) -> bool:
    return (
        isinstance(element_type, IntegerType)
        and element_type.signedness.data == Signedness.UNSIGNED
    )


def _element(value, what: str, widths: Sequence[int]) -> IntegerType | None:
    """The integer element type of a ranked tensor of one of `widths`; None if unranked."""
    t = ranked(value)
    if t is None:
        return None
    el = t.element_type
    if not isinstance(el, IntegerType) or el.width.data not in widths:
        kinds = "/".join(f"i{w}" for w in widths)
        raise VerifyException(f"{what} must be a {kinds} tensor, got {t}")
    return el


def _check_signless(value, what: str, width: int) -> None:
    el = _element(value, what, (width,))
    if el is not None and el.signedness.data != Signedness.SIGNLESS:
        raise VerifyException(
            f"{what} must be a signless i{width} tensor, got {value.type}"
        )


def i64_array_values(attr: Attribute | None, what: str) -> np.ndarray:
    if not isinstance(attr, DenseArrayBase) or attr.elt_type != i64:
        raise VerifyException(f"{what} must be an array<i64>, got {attr}")
    return np.asarray(attr.get_values(), dtype=np.int64)


def quantization_props(
    scale: Sequence[float] | np.ndarray,
    zero_point: Sequence[int] | np.ndarray,
    axis: int | None = None,
) -> dict[str, Attribute]:
    """Properties of nn.quantize / nn.dequantize; `axis` makes them per-axis."""
    props: dict[str, Attribute] = {
        "scale": f32_array(scale),
        "zero_point": DenseArrayBase.from_list(
            i64, [int(z) for z in np.asarray(zero_point).ravel()]
        ),
    }
    if axis is not None:
        props["axis"] = i64_attr(axis)
    return props


def check_same_shape(input_value: SSAValue, output: SSAValue) -> None:
    """A result of the input's shape (dims unknown on either side agree)."""
    x, y = ranked(input_value), ranked(output)
    if (
        x is not None
        and y is not None
        and not dims_compatible(y.get_shape(), x.get_shape())
    ):
        raise VerifyException(
            f"result shape {list(y.get_shape())} differs from input shape {list(x.get_shape())}"
        )


class QuantizationOp(NNOperation):
    """Shared by nn.quantize and nn.dequantize: `scale` and `zero_point` hold one
    value (per tensor) or one per index of `axis` (default 1, as in ONNX)."""

    input = operand_def()
    output = result_def()
    scale = prop_def(DenseArrayBase)
    zero_point = prop_def(DenseArrayBase)
    axis = opt_prop_def(IntegerAttr)
    arithmetic = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT
    ARITHMETIC: ClassVar[tuple[str, ...]] = ()

    @property
    def scales(self) -> np.ndarray:
        return f32_values(self.scale)

    @property
    def zero_points(self) -> np.ndarray:
        return i64_array_values(self.zero_point, "zero_point")

    @property
    def arithmetic_name(self) -> str:
        """The `arithmetic` property, or the op's default."""
        return str_value(self.properties, "arithmetic", self.ARITHMETIC[0])

    def verify_arithmetic(self, int_type: Attribute | None) -> None:
        name = self.arithmetic_name
        if name not in self.ARITHMETIC:
            raise VerifyException(
                f"arithmetic {name!r} is not one of {', '.join(self.ARITHMETIC)}"
            )
        if name == self.ARITHMETIC[0]:
            return
        if len(self.scales) != 1 or self.axis is not None:
            raise VerifyException(f"arithmetic {name!r} is per tensor only")
        if int_type is not None and int_range(int_type) != (-128, 127):
            raise VerifyException(f"arithmetic {name!r} is for i8 values only")

    def channel_axis(self, rank: int) -> int | None:
        """The quantization axis, None when per tensor."""
        if len(self.scales) == 1 and self.axis is None:
            return None
        return normalize_axis(int_value(self.properties, "axis", 1), rank)

    def verify_quantization(self, int_type: Attribute | None) -> None:
        scales, zero_points = self.scales, self.zero_points
        if len(scales) == 0 or len(scales) != len(zero_points):
            raise VerifyException(
                f"scale and zero_point must have the same non-zero length, got {len(scales)} and {len(zero_points)}"
            )
        if not (np.isfinite(scales) & (scales > 0)).all():
            raise VerifyException("scales must be positive and finite")
        if int_type is not None:
            low, high = int_range(int_type)
            if zero_points.min() < low or zero_points.max() > high:
                raise VerifyException(
                    f"zero points must lie in [{low}, {high}] for {int_type}"
                )
        x = ranked(self.input)
        if x is None:
            return
        axis = self.channel_axis(len(x.get_shape()))
        if axis is None:
            return
        size = x.get_shape()[axis]
        if len(scales) != 1 and size not in (DYN, len(scales)):
            raise VerifyException(
                f"{len(scales)} scales do not match axis {axis} of size {size}"
            )


@irdl_op_definition
class QuantizeOp(QuantizationOp):
    """ONNX QuantizeLinear: saturate(round_half_even(x / scale) + zero_point),
    to the result's integer type (i8, ui8, i16, ui16 or i32); `arithmetic`
    (QUANTIZE_ARITHMETIC) names a runtime's other rounding."""

    name = "nn.quantize"
    ARITHMETIC: ClassVar[tuple[str, ...]] = QUANTIZE_ARITHMETIC

    def verify_properties(self) -> None:
        element = getattr(self.input.type, "element_type", None)
        if element is not None and not isinstance(element, AnyFloat):
            raise VerifyException(
                f"quantize needs a float input, got {self.input.type}"
            )
        out = _element(self.output, "quantize result", (8, 16, 32))
        self.verify_quantization(out)
        self.verify_arithmetic(out)
        check_same_shape(self.input, self.output)


@irdl_op_definition
class DequantizeOp(QuantizationOp):
    """ONNX DequantizeLinear: (x - zero_point) * scale, as f32 (`arithmetic`:
    DEQUANTIZE_ARITHMETIC)."""

    name = "nn.dequantize"
    ARITHMETIC: ClassVar[tuple[str, ...]] = DEQUANTIZE_ARITHMETIC
    KEEP_ON_CONSTANTS: ClassVar[bool] = True
    """A quantized weight stays quantized: runtimes run its consumer in integers."""

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        return None if x is None else [tensor_type(f32, x.get_shape())]

    def verify_properties(self) -> None:
        element = _element(self.input, "dequantize input", (8, 16, 32))
        self.verify_quantization(element)
        self.verify_arithmetic(element)


def integer_result(
    float_op: type[NNOperation], operands, props, names: tuple[str, str, str, str]
) -> list[Attribute] | None:
    """The i32 result of an integer form of `float_op`: its first two operands
    (`names[:2]`) signless i8 with zero points `names[2:]` in range, shapes as
    `float_op` infers them."""
    _check_signless(operands[0], names[0], 8)
    _check_signless(operands[1], names[1], 8)
    _check_zero_point(props, names[2], operands[0])
    _check_zero_point(props, names[3], operands[1])
    inferred = float_op.infer_result_types(operands, props)
    if inferred is None:
        return None
    return [tensor_type(i32, inferred[0].get_shape())]  # type: ignore[attr-defined]


def integer_conv_result(
    float_op: type[ConvolutionBase], what: str, operands, props
) -> list[Attribute] | None:
    """integer_result of a conv-like op, whose optional bias is i32."""
    if len(operands) == 3:
        _check_signless(operands[2], f"{what} bias", 32)
    names = (f"{what} input", f"{what} filter", "input_zp", "weight_zp")
    return integer_result(float_op, operands, props, names)


@irdl_op_definition
class QConvOp(ConvolutionBase):
    """Integer nn.conv, as TOSA CONV2D / DEPTHWISE_CONV2D: i8 input and filter,
    optional i32 bias, i32 result = sum((x - input_zp) * (w - weight_zp)) + bias.

    Padding contributes zero (it pads x - input_zp). Layout, strides, pads,
    dilations and groups are nn.conv's.
    """

    name = "nn.qconv"
    input_zp = opt_prop_def(IntegerAttr)
    weight_zp = opt_prop_def(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        return integer_conv_result(ConvOp, "qconv", operands, props)


@irdl_op_definition
class QConvTransposeOp(ConvolutionBase):
    """Integer nn.conv_transpose, as TOSA TRANSPOSE_CONV2D: i8 input and filter,
    optional i32 bias, i32 result = the transposed convolution of
    (x - input_zp) by (w - weight_zp), plus bias.

    Cropped or added output (pads, output_padding) contributes zero. Layout
    (filter IOHW or HWOI), strides, pads, dilations, groups, output_padding
    and output_shape are nn.conv_transpose's.
    """

    name = "nn.qconv_transpose"
    output_padding = opt_prop_def(DenseArrayBase)
    output_shape = opt_prop_def(DenseArrayBase)
    input_zp = opt_prop_def(IntegerAttr)
    weight_zp = opt_prop_def(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        return integer_conv_result(ConvTransposeOp, "qconv_transpose", operands, props)


@irdl_op_definition
class QMatMulOp(NNOperation):
    """Integer nn.matmul, as TOSA MATMUL: i8 operands, i32 result
    (lhs - a_zp) @ (rhs - b_zp) with numpy.matmul's shape rule."""

    name = "nn.qmatmul"
    lhs = operand_def()
    rhs = operand_def()
    output = result_def()
    a_zp = opt_prop_def(IntegerAttr)
    b_zp = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        names = ("qmatmul lhs", "qmatmul rhs", "a_zp", "b_zp")
        return integer_result(MatMulOp, operands, props, names)


def _check_zero_point(props, name: str, value) -> None:
    zp = int_value(props, name, 0)
    el = ranked(value)
    if el is not None:
        low, high = int_range(el.element_type)
        if not low <= zp <= high:
            raise VerifyException(f"{name} {zp} is out of range [{low}, {high}]")


def rescale_props(
    multiplier: Sequence[int] | np.ndarray,
    shift: Sequence[int] | np.ndarray,
    input_zp: int = 0,
    output_zp: int = 0,
    *,
    scale32: bool = True,
    rounding_mode: str = "SINGLE_ROUND",
    per_channel: bool = False,
    input_unsigned: bool = False,
    output_unsigned: bool = False,
) -> dict[str, Attribute]:
    """Properties of an nn.rescale."""
    return {
        "multiplier": DenseArrayBase.from_list(
            i32 if scale32 else i16, [int(m) for m in np.asarray(multiplier).ravel()]
        ),
        "shift": DenseArrayBase.from_list(
            i8, [int(s) for s in np.asarray(shift).ravel()]
        ),
        "input_zp": i64_attr(int(input_zp)),
        "output_zp": i64_attr(int(output_zp)),
        "scale32": i64_attr(int(scale32)),
        "rounding_mode": StringAttr(rounding_mode),
        "per_channel": i64_attr(int(per_channel)),
        "input_unsigned": i64_attr(int(input_unsigned)),
        "output_unsigned": i64_attr(int(output_unsigned)),
    }


@irdl_op_definition
class RescaleOp(NNOperation):
    """TOSA 1.0 RESCALE: out = saturate(apply_scale(in - input_zp, multiplier[c],
    shift[c]) + output_zp), c = the last index when `per_channel`, else 0.

    apply_scale is apply_scale_32 (i32 multiplier; DOUBLE_ROUND adds +-2^30
    to the rounding term when shift > 31) or, with scale32 = 0,
    apply_scale_16 (i16 multiplier); both round half up: (v * m + 2^(shift-1)) >> shift.
    FP32_HALF_EVEN (no TOSA form) is XNNPACK's fp32 requantization: v
    converted to float32, times the float32 m * 2^-shift (exact: m < 2^24),
    the float32 product rounded half to even.
    `input_unsigned` / `output_unsigned` read / write the values as unsigned
    (required for ui* types). Flags are 0/1 integers.
    """

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {
        "scale32": 1,
        "rounding_mode": "SINGLE_ROUND",
    }

    name = "nn.rescale"
    input = operand_def()
    output = result_def()
    multiplier = prop_def(DenseArrayBase)
    shift = prop_def(DenseArrayBase)
    input_zp = opt_prop_def(IntegerAttr)
    output_zp = opt_prop_def(IntegerAttr)
    scale32 = opt_prop_def(IntegerAttr)
    rounding_mode = opt_prop_def(StringAttr)
    per_channel = opt_prop_def(IntegerAttr)
    input_unsigned = opt_prop_def(IntegerAttr)
    output_unsigned = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @property
    def is_scale32(self) -> bool:
        value = int_value(self.properties, "scale32", 1)
        if value not in (0, 1):
            raise VerifyException(f"scale32 must be 0 or 1, got {value}")
        return bool(value)

    @property
    def rounding(self) -> str:
        return str_value(self.properties, "rounding_mode", "SINGLE_ROUND")

    def flag(self, name: str) -> bool:
        return check_flag(self.properties, name)

    @property
    def multipliers(self) -> np.ndarray:
        return np.asarray(self.multiplier.get_values(), dtype=np.int64)

    @property
    def shifts(self) -> np.ndarray:
        return np.asarray(self.shift.get_values(), dtype=np.int64)

    def verify_properties(self) -> None:
        in_el = _element(self.input, "rescale input", (8, 16, 32))
        out_el = _element(self.output, "rescale result", (8, 16, 32))
        self._verify_scale()
        in_unsigned, out_unsigned = (
            self.flag("input_unsigned"),
            self.flag("output_unsigned"),
        )
        if in_unsigned and out_unsigned:
            raise VerifyException(
                "input_unsigned and output_unsigned exclude each other"
            )
        if self.flag("per_channel"):
            x = ranked(self.input)
            if x is not None and not x.get_shape():
                raise VerifyException("per_channel needs an input of rank >= 1")
        for el, unsigned, zp_name, side in (
            (in_el, in_unsigned, "input_zp", "input"),
            (out_el, out_unsigned, "output_zp", "output"),
        ):
            if el is not None:
                self._verify_side(el, unsigned, zp_name, side)
        if in_el is not None and out_el is not None:
            if out_el.width.data == 32 and in_unsigned:
                raise VerifyException("an i32 result needs a signed input")
            if in_el.width.data == 32 and out_unsigned:
                raise VerifyException("an i32 input needs a signed result")
        self._verify_channels()
        check_same_shape(self.input, self.output)

    def _verify_scale(self) -> None:
        scale32 = self.is_scale32
        expected = i32 if scale32 else i16
        if self.multiplier.elt_type != expected:
            raise VerifyException(
                f"multiplier must be an array<{expected}> when scale32 = {int(scale32)}"
            )
        if self.shift.elt_type != i8:
            raise VerifyException("shift must be an array<i8>")
        if self.rounding not in ROUNDING_MODES:
            raise VerifyException(
                f"rounding_mode must be one of {ROUNDING_MODES}, got {self.rounding!r}"
            )
        if self.rounding != "SINGLE_ROUND" and not scale32:
            raise VerifyException(f"{self.rounding} needs scale32 = 1")
        multipliers, shifts = self.multipliers, self.shifts
        if (
            self.rounding == "FP32_HALF_EVEN"
            and multipliers.max() >= FP32_MANTISSA_LIMIT
        ):
            raise VerifyException("FP32_HALF_EVEN multipliers must be below 2^24")
        if len(multipliers) == 0 or len(multipliers) != len(shifts):
            raise VerifyException(
                f"multiplier and shift must have the same non-zero length, got {len(multipliers)} and {len(shifts)}"
            )
        if multipliers.min() < 0:
            raise VerifyException("multipliers must be non-negative")
        if shifts.min() < MIN_SHIFT or shifts.max() > MAX_SHIFT:
            raise VerifyException(f"shifts must lie in [{MIN_SHIFT}, {MAX_SHIFT}]")

    def _verify_side(
        self, el: IntegerType, unsigned: bool, zp_name: str, side: str
    ) -> None:
        width = el.width.data
        if is_unsigned(el) and not unsigned:
            raise VerifyException(f"{side} type {el} needs {side}_unsigned = 1")
        if unsigned and width == 32:
            raise VerifyException(f"{side}_unsigned is not allowed for i32")
        zp = int_value(self.properties, zp_name, 0)
        if zp == 0:
            return
        if width == 16 and unsigned and zp == 32768:
            return
        if width != 8:
            raise VerifyException(
                f"{zp_name} must be 0 for {el}{' (or 32768 unsigned)' if width == 16 else ''}"
            )
        low, high = int_range(el, unsigned)
        if not low <= zp <= high:
            raise VerifyException(f"{zp_name} {zp} is out of range [{low}, {high}]")

    def _verify_channels(self) -> None:
        count = len(self.multipliers)
        if not self.flag("per_channel"):
            if count != 1:
                raise VerifyException(
                    f"{count} multipliers need per_channel = 1 (one per last-dim index)"
                )
            return
        x = ranked(self.input)
        if x is not None and x.get_shape()[-1] not in (DYN, count):
            raise VerifyException(
                f"per_channel needs {x.get_shape()[-1]} multipliers (the last dim), got {count}"
            )


QINT_OPS = [QuantizeOp, DequantizeOp, QConvOp, QConvTransposeOp, QMatMulOp, RescaleOp]
