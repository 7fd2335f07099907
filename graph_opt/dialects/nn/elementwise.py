"""Elementwise ops with numpy broadcasting, and pointwise activations."""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, i1
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Commutative, Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import GENERIC_FORMAT, NNOperation, check_flag
from graph_opt.dialects.nn.shapes import broadcast_shapes, ranked, tensor_type


class ElementwiseBinaryOp(NNOperation, ABC):
    """`lhs op rhs` with numpy broadcasting; the result has lhs's element type."""

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    lhs = operand_def()
    rhs = operand_def()
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT
    SAME_ELEMENT_TYPES: ClassVar[bool] = True

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        lhs, rhs = (ranked(v) for v in operands)
        if lhs is None or rhs is None:
            return None
        if cls.SAME_ELEMENT_TYPES and lhs.element_type != rhs.element_type:
            raise VerifyException(
                f"operand element types differ: {lhs.element_type} and {rhs.element_type}"
            )
        shape = broadcast_shapes(lhs.get_shape(), rhs.get_shape())
        return [tensor_type(lhs.element_type, shape)]


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    name = "nn.add"
    traits = traits_def(Pure(), Commutative())


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    name = "nn.sub"


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    name = "nn.mul"
    traits = traits_def(Pure(), Commutative())


@irdl_op_definition
class DivOp(ElementwiseBinaryOp):
    name = "nn.div"


@irdl_op_definition
class PowOp(ElementwiseBinaryOp):
    """Power; the exponent may have another element type (as in ONNX)."""

    name = "nn.pow"
    SAME_ELEMENT_TYPES: ClassVar[bool] = False


@irdl_op_definition
class MaxOp(ElementwiseBinaryOp):
    name = "nn.max"
    traits = traits_def(Pure(), Commutative())


@irdl_op_definition
class MinOp(ElementwiseBinaryOp):
    name = "nn.min"
    traits = traits_def(Pure(), Commutative())


@irdl_op_definition
class ModOp(ElementwiseBinaryOp):
    """Remainder (ONNX Mod): with `fmod` = 1 truncated (C's fmod: the sign of lhs),
    else floored (Python's %: the sign of rhs; TF FloorMod)."""

    name = "nn.mod"
    fmod = opt_prop_def(IntegerAttr)

    def verify_properties(self) -> None:
        check_flag(self.properties, "fmod")


class ElementwiseUnaryOp(NNOperation, ABC):
    """A pointwise op: the result has the input's type."""

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    input = operand_def()
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute]:
        return [operands[0].type]


def _unary(
    op_name: str, class_name: str, doc: str, base: type = ElementwiseUnaryOp
) -> type[ElementwiseUnaryOp]:
    cls = type(
        class_name, (base,), {"name": op_name, "__doc__": doc, "__module__": __name__}
    )
    return irdl_op_definition(cls)


SqrtOp = _unary("nn.sqrt", "SqrtOp", "Square root.")
ReciprocalOp = _unary("nn.reciprocal", "ReciprocalOp", "1 / x.")
ExpOp = _unary("nn.exp", "ExpOp", "Natural exponential.")
LogOp = _unary("nn.log", "LogOp", "Natural logarithm.")
ErfOp = _unary("nn.erf", "ErfOp", "Gauss error function.")
NegOp = _unary("nn.neg", "NegOp", "Negation.")
AbsOp = _unary("nn.abs", "AbsOp", "Absolute value.")
ReluOp = _unary("nn.relu", "ReluOp", "max(x, 0).")
SigmoidOp = _unary("nn.sigmoid", "SigmoidOp", "1 / (1 + exp(-x)).")
TanhOp = _unary("nn.tanh", "TanhOp", "Hyperbolic tangent.")
IdentityOp = _unary("nn.identity", "IdentityOp", "Returns its input.")
StopGradientOp = _unary(
    "nn.stop_gradient",
    "StopGradientOp",
    "Identity in inference; blocks gradients in training (TensorFlow).",
)


@irdl_op_definition
class LeakyReluOp(ElementwiseUnaryOp):
    """x if x >= 0 else alpha * x."""

    name = "nn.leaky_relu"
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(0.01, 32))


@irdl_op_definition
class ClipOp(ElementwiseUnaryOp):
    """Clamp to [min, max]; a missing bound is unbounded (Relu6 is min=0, max=6)."""

    name = "nn.clip"
    min = opt_prop_def(FloatAttr)
    max = opt_prop_def(FloatAttr)


@irdl_op_definition
class GeluOp(ElementwiseUnaryOp):
    """Gaussian error linear unit, exact (`none`) or with the `tanh` approximation."""

    name = "nn.gelu"
    approximate = opt_prop_def(Attribute)

    def verify_properties(self) -> None:
        if self.approximate is not None and getattr(
            self.approximate, "data", None
        ) not in (
            "none",
            "tanh",
        ):
            raise VerifyException('approximate must be "none" or "tanh"')


# Unary math ops that real graphs carry (TensorFlow's and ONNX's names in the docs).
SinOp = _unary("nn.sin", "SinOp", "Sine.")
CosOp = _unary("nn.cos", "CosOp", "Cosine.")
TanOp = _unary("nn.tan", "TanOp", "Tangent.")
AsinOp = _unary("nn.asin", "AsinOp", "Arcsine.")
AcosOp = _unary("nn.acos", "AcosOp", "Arccosine.")
AtanOp = _unary("nn.atan", "AtanOp", "Arctangent.")
SinhOp = _unary("nn.sinh", "SinhOp", "Hyperbolic sine.")
CoshOp = _unary("nn.cosh", "CoshOp", "Hyperbolic cosine.")
AsinhOp = _unary("nn.asinh", "AsinhOp", "Inverse hyperbolic sine.")
AcoshOp = _unary("nn.acosh", "AcoshOp", "Inverse hyperbolic cosine.")
AtanhOp = _unary("nn.atanh", "AtanhOp", "Inverse hyperbolic tangent.")
FloorOp = _unary("nn.floor", "FloorOp", "Round toward -inf.")
CeilOp = _unary("nn.ceil", "CeilOp", "Round toward +inf.")
RoundOp = _unary("nn.round", "RoundOp", "Round half to even (TF Round, ONNX Round).")
SignOp = _unary("nn.sign", "SignOp", "-1, 0 or 1 by the sign of x (NaN stays NaN).")
Log1pOp = _unary("nn.log1p", "Log1pOp", "log(1 + x), accurate near 0.")
Expm1Op = _unary("nn.expm1", "Expm1Op", "exp(x) - 1, accurate near 0.")
SoftplusOp = _unary("nn.softplus", "SoftplusOp", "log(1 + exp(x)).")
SoftsignOp = _unary("nn.softsign", "SoftsignOp", "x / (1 + |x|).")
HardSwishOp = _unary(
    "nn.hard_swish", "HardSwishOp", "x * relu6(x + 3) / 6 (ONNX HardSwish)."
)
MishOp = _unary("nn.mish", "MishOp", "x * tanh(softplus(x)).")
SiluOp = _unary("nn.silu", "SiluOp", "x * sigmoid(x) (SiLU; ONNX Swish with alpha 1).")


@irdl_op_definition
class EluOp(ElementwiseUnaryOp):
    """x if x > 0 else alpha * (exp(x) - 1)."""

    name = "nn.elu"
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(1.0, 32))


SELU_ALPHA = 1.67326319217681884765625
SELU_GAMMA = 1.05070102214813232421875


@irdl_op_definition
class SeluOp(ElementwiseUnaryOp):
    """gamma * (x if x > 0 else alpha * (exp(x) - 1))."""

    name = "nn.selu"
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(SELU_ALPHA, 32))
    gamma = opt_prop_def(FloatAttr, default_value=FloatAttr(SELU_GAMMA, 32))


@irdl_op_definition
class HardSigmoidOp(ElementwiseUnaryOp):
    """max(0, min(1, alpha * x + beta))."""

    name = "nn.hard_sigmoid"
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(0.2, 32))
    beta = opt_prop_def(FloatAttr, default_value=FloatAttr(0.5, 32))


class FloatTestOp(ElementwiseUnaryOp, ABC):
    """A test of each element of a float tensor: the result is i1 of its shape."""

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is None:
            return None
        if not isinstance(x.element_type, AnyFloat):
            raise VerifyException(f"expected a float tensor, got {x}")
        return [tensor_type(i1, x.get_shape())]


IsNanOp = _unary("nn.is_nan", "IsNanOp", "Whether x is NaN.", FloatTestOp)
IsInfOp = _unary("nn.is_inf", "IsInfOp", "Whether x is +inf or -inf.", FloatTestOp)
IsFiniteOp = _unary(
    "nn.is_finite", "IsFiniteOp", "Whether x is neither inf nor NaN.", FloatTestOp
)

MATH_OPS = [
    SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp,
    AcoshOp, AtanhOp, FloorOp, CeilOp, RoundOp, SignOp, Log1pOp, Expm1Op,
    SoftplusOp, SoftsignOp, HardSwishOp, MishOp, SiluOp, EluOp, SeluOp, HardSigmoidOp,
    IsNanOp, IsInfOp, IsFiniteOp,
]  # fmt: skip
"""The unary math ops and activations beyond the basic ones."""

ELEMENTWISE_OPS = [
    AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, ModOp,
    SqrtOp, ReciprocalOp, ExpOp, LogOp, ErfOp, NegOp, AbsOp,
    ReluOp, SigmoidOp, TanhOp, IdentityOp, StopGradientOp,
    LeakyReluOp, ClipOp, GeluOp, *MATH_OPS,
]  # fmt: skip
