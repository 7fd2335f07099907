"""Lowering of nn's elementwise ops and activations to TOSA (float element types;
the integer adds, subs and clamps of convert-to-int's int8 graphs)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import tosa
from xdsl.dialects.builtin import IntegerType, TensorType, i1, i32, i64
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn import elementwise as nn
from graph_opt.dialects.nn.base import float_value, str_value
from graph_opt.dialects.nn.tensor_ops import DropoutOp
from graph_opt.lowering.lowering_pattern import LoweringPattern
from graph_opt.lowering.tosa_builder import TosaBuilder, element_of, shape_of

FLOAT_MAX = float("inf")

BINARY_OPS: dict[type[Operation], type[Operation]] = {
    nn.AddOp: tosa.AddOp,
    nn.SubOp: tosa.SubOp,
    nn.MulOp: tosa.MulOp,
    nn.PowOp: tosa_ext.PowOp,
    nn.MaxOp: tosa_ext.MaximumOp,
    nn.MinOp: tosa_ext.MinimumOp,
}

UNARY_OPS: dict[type[Operation], type[Operation]] = {
    nn.ExpOp: tosa_ext.ExpOp,
    nn.LogOp: tosa_ext.LogOp,
    nn.ErfOp: tosa_ext.ErfOp,
    nn.AbsOp: tosa_ext.AbsOp,
    nn.SigmoidOp: tosa_ext.SigmoidOp,
    nn.TanhOp: tosa_ext.TanhOp,
    nn.ReciprocalOp: tosa.ReciprocalOp,
    nn.SinOp: tosa.SinOp,
    nn.CosOp: tosa.CosOp,
    nn.FloorOp: tosa_ext.FloorOp,
    nn.CeilOp: tosa_ext.CeilOp,
}

FORWARDED_OPS = (nn.IdentityOp, nn.StopGradientOp, DropoutOp)
"""Identity in inference: the result is the input."""

COMPOSITE_ACTIVATIONS = (
    nn.EluOp,
    nn.SeluOp,
    nn.HardSigmoidOp,
    nn.HardSwishOp,
    nn.SoftsignOp,
    nn.MishOp,
    nn.SiluOp,
    nn.SoftplusOp,
)
"""Activations TOSA lacks, lowered to its arithmetic."""

LOWERED_OPS = (
    *BINARY_OPS,
    *UNARY_OPS,
    nn.DivOp,
    nn.SqrtOp,
    nn.NegOp,
    nn.ReluOp,
    nn.ClipOp,
    nn.LeakyReluOp,
    nn.GeluOp,
    *COMPOSITE_ACTIVATIONS,
)

INTEGER_OPS = (nn.AddOp, nn.SubOp, nn.ClipOp)
"""Exact on integers: convert-to-int's i32 adds of rescaled inputs and int8 clamps."""
WIDE_INTEGER_OPS = (nn.MulOp, nn.MaxOp, nn.MinOp)
"""Exact on i32 (tosa.mul with shift 0, while the product fits) and on i64 as
IREE accepts it: index arithmetic such as batch * count + index."""


def is_float(value: SSAValue) -> bool:
    return not isinstance(element_of(value), IntegerType)


def leaky_relu(b: TosaBuilder, x: SSAValue, alpha: float) -> SSAValue:
    """select(x >= 0, x, alpha * x)."""
    zero = b.const_like(x, 0.0)
    positive = b.add(
        tosa_ext.GreaterEqualOp.build(
            operands=[x, zero], result_types=[TensorType(i1, shape_of(x))]
        )
    )
    scaled = b.scale(x, alpha)
    return b.add(
        tosa_ext.SelectOp.build(operands=[positive, x, scaled], result_types=[x.type])
    )


def elu(b: TosaBuilder, x: SSAValue, alpha: float) -> SSAValue:
    """select(x > 0, x, alpha * (exp(x) - 1))."""
    positive = b.add(
        tosa_ext.GreaterOp.build(
            operands=[x, b.const_like(x, 0.0)],
            result_types=[TensorType(i1, shape_of(x))],
        )
    )
    expm1 = b.binary(tosa.SubOp, b.unary(tosa_ext.ExpOp, x), b.const_like(x, 1.0))
    return b.add(
        tosa_ext.SelectOp.build(
            operands=[positive, x, b.scale(expm1, alpha)], result_types=[x.type]
        )
    )


def hard_sigmoid(b: TosaBuilder, x: SSAValue, alpha: float, beta: float) -> SSAValue:
    """clamp(alpha * x + beta, 0, 1)."""
    return b.clamp(b.binary(tosa.AddOp, b.scale(x, alpha), b.const_like(x, beta)), 0, 1)


def composite_activation(b: TosaBuilder, op: Operation) -> SSAValue:
    """Elu, Selu, HardSigmoid, HardSwish, Softsign, Mish and Softplus as TOSA arithmetic."""
    x, props = op.operands[0], op.properties
    match op:
        case nn.EluOp():
            return elu(b, x, float_value(props, "alpha", 1.0))
        case nn.SeluOp():
            alpha = float_value(props, "alpha", nn.SELU_ALPHA)
            return b.scale(elu(b, x, alpha), float_value(props, "gamma", nn.SELU_GAMMA))
        case nn.HardSigmoidOp():
            alpha, beta = (
                float_value(props, "alpha", 0.2),
                float_value(props, "beta", 0.5),
            )
            return hard_sigmoid(b, x, alpha, beta)
        case nn.HardSwishOp():
            return b.binary(tosa.MulOp, x, hard_sigmoid(b, x, 1 / 6, 0.5))
        case nn.SoftsignOp():
            denominator = b.binary(
                tosa.AddOp, b.unary(tosa_ext.AbsOp, x), b.const_like(x, 1.0)
            )
            return b.binary(tosa.MulOp, x, b.unary(tosa.ReciprocalOp, denominator))
        case nn.MishOp():
            return b.binary(tosa.MulOp, x, b.unary(tosa_ext.TanhOp, softplus(b, x)))
        case nn.SiluOp():
            return silu(b, x)
    return softplus(b, x)


def silu(b: TosaBuilder, x: SSAValue) -> SSAValue:
    """x * sigmoid(x)."""
    return b.binary(tosa.MulOp, x, b.unary(tosa_ext.SigmoidOp, x))


def softplus(b: TosaBuilder, x: SSAValue) -> SSAValue:
    """max(x, 0) + log(1 + exp(-|x|)), which never overflows."""
    zero = b.zero_point(element_of(x))
    negative_abs = b.add(
        tosa_ext.NegateOp.build(
            operands=[b.unary(tosa_ext.AbsOp, x), zero, zero], result_types=[x.type]
        )
    )
    exp = b.unary(tosa_ext.ExpOp, negative_abs)
    log = b.unary(tosa_ext.LogOp, b.binary(tosa.AddOp, exp, b.const_like(x, 1.0)))
    return b.binary(
        tosa.AddOp, b.binary(tosa_ext.MaximumOp, x, b.const_like(x, 0.0)), log
    )


def gelu(b: TosaBuilder, x: SSAValue, approximate: str) -> SSAValue:
    """0.5 x (1 + erf(x / sqrt 2)), or with tanh(sqrt(2 / pi) (x + 0.044715 x^3))."""
    if approximate == "tanh":
        cube = b.binary(tosa.MulOp, b.binary(tosa.MulOp, x, x), x)
        inner = b.binary(tosa.AddOp, x, b.scale(cube, 0.044715))
        core = b.unary(tosa_ext.TanhOp, b.scale(inner, math.sqrt(2 / math.pi)))
    else:
        core = b.unary(tosa_ext.ErfOp, b.scale(x, 1 / math.sqrt(2)))
    one_plus = b.binary(tosa.AddOp, core, b.const_like(x, 1.0))
    return b.binary(tosa.MulOp, b.scale(x, 0.5), one_plus)


def activation(
    b: TosaBuilder, x: SSAValue, name: str, params: Sequence[float]
) -> SSAValue | None:
    """A fused op's activation on x; None for an unknown one."""
    match name:
        case "none":
            return x
        case "relu":
            return b.clamp(x, 0.0, FLOAT_MAX)
        case "relu6":
            return b.clamp(x, 0.0, 6.0)
        case "clip":
            return b.clamp(x, params[0], params[1])
        case "sigmoid":
            return b.unary(tosa_ext.SigmoidOp, x)
        case "tanh":
            return b.unary(tosa_ext.TanhOp, x)
        case "leaky_relu":
            return leaky_relu(b, x, params[0])
        case "hard_sigmoid":
            return hard_sigmoid(b, x, params[0], params[1])
        case "hard_swish":
            return b.binary(tosa.MulOp, x, hard_sigmoid(b, x, 1 / 6, 0.5))
        case "silu":
            return silu(b, x)
        case "gelu" | "gelu_tanh":
            return gelu(b, x, "tanh" if name == "gelu_tanh" else "none")
    return None


class LowerElementwise(LoweringPattern):
    """nn elementwise ops on floats -> TOSA elementwise ops."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, FORWARDED_OPS):
            rewriter.replace(op, [], [op.operands[0]])
            return
        if not isinstance(op, LOWERED_OPS):
            return
        integer = not all(is_float(v) for v in op.operands)
        if integer and not (
            isinstance(op, INTEGER_OPS)
            or (
                isinstance(op, WIDE_INTEGER_OPS)
                and element_of(op.operands[0]) in (i32, i64)
            )
        ):
            self.decline(op, "integer elementwise ops lower only through nn.rescale")
            return
        b = TosaBuilder()
        result = self.lower(b, op)
        rewriter.replace(op, b.ops, [result])

    @staticmethod
    def lower(b: TosaBuilder, op: Operation) -> SSAValue:
        x = op.operands[0]
        if type(op) in BINARY_OPS:
            return b.binary(BINARY_OPS[type(op)], x, op.operands[1])
        if type(op) in UNARY_OPS:
            return b.unary(UNARY_OPS[type(op)], x)
        if isinstance(op, COMPOSITE_ACTIVATIONS):
            return composite_activation(b, op)
        props = op.properties
        match op:
            case nn.DivOp():
                inverse = b.unary(tosa.ReciprocalOp, op.operands[1])
                return b.binary(tosa.MulOp, x, inverse)
            case nn.SqrtOp():
                return b.unary(tosa.ReciprocalOp, b.unary(tosa_ext.RsqrtOp, x))
            case nn.NegOp():
                zero = b.zero_point(element_of(x))
                return b.add(
                    tosa_ext.NegateOp.build(
                        operands=[x, zero, zero], result_types=[x.type]
                    )
                )
            case nn.ReluOp():
                return b.clamp(x, 0.0, FLOAT_MAX)
            case nn.ClipOp():
                low = float_value(props, "min", -FLOAT_MAX)
                high = float_value(props, "max", FLOAT_MAX)
                return b.clamp(x, low, high)
            case nn.LeakyReluOp():
                return leaky_relu(b, x, float_value(props, "alpha", 0.01))
            case _:
                return gelu(b, x, str_value(props, "approximate", "none"))
