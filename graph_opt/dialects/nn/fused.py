"""Fused ops: a convolution or matmul with its bias and activation in one op (TensorFlow's _FusedConv2D, _FusedMatMul)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    StringAttr,
    TensorType,
    f32,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import GENERIC_FORMAT, NNOperation, str_value
from graph_opt.dialects.nn.conv import ConvolutionBase, ConvOp
from graph_opt.dialects.nn.linalg import MatMulOp, check_same_element_type
from graph_opt.dialects.nn.shapes import dims_compatible, ranked

ACTIVATION_PARAM_COUNTS = {
    "none": 0,
    "relu": 0,
    "relu6": 0,
    "sigmoid": 0,
    "tanh": 0,
    "clip": 2,
    "leaky_relu": 1,
    "hard_sigmoid": 2,
    "hard_swish": 0,
    "silu": 0,
    "gelu": 0,
    "gelu_tanh": 0,
}
"""Each fused activation and how many `activation_params` it takes (clip: min,
max; leaky_relu: alpha; hard_sigmoid: alpha, beta). gelu is the exact (erf)
form, gelu_tanh its tanh approximation."""


def f32_array(values) -> DenseArrayBase:
    return DenseArrayBase.from_list(f32, [float(v) for v in values])


class FusedActivation:
    """The `activation` and `activation_params` properties of a fused op."""

    activation = opt_prop_def(StringAttr, default_value=StringAttr("none"))
    activation_params = opt_prop_def(DenseArrayBase)

    @property
    def activation_name(self) -> str:
        return str_value(self.properties, "activation", "none")  # type: ignore[attr-defined]

    @property
    def activation_values(self) -> tuple[float, ...]:
        params = self.properties.get("activation_params")  # type: ignore[attr-defined]
        return () if params is None else tuple(params.get_values())  # type: ignore[attr-defined]

    def verify_properties(self) -> None:
        name = self.activation_name
        if name not in ACTIVATION_PARAM_COUNTS:
            raise VerifyException(
                f"activation must be one of {tuple(ACTIVATION_PARAM_COUNTS)}, got {name!r}"
            )
        params = self.properties.get("activation_params")  # type: ignore[attr-defined]
        if params is not None and params.elt_type != f32:  # type: ignore[attr-defined]
            raise VerifyException("activation_params must be an array<f32>")
        expected = ACTIVATION_PARAM_COUNTS[name]
        if len(self.activation_values) != expected:
            raise VerifyException(
                f"activation {name!r} takes {expected} activation_params, "
                f"got {len(self.activation_values)}"
            )


@irdl_op_definition
class FusedConvOp(FusedActivation, ConvolutionBase):
    """nn.conv (optional bias) followed by a pointwise activation.

    Same operands, properties and type rule as nn.conv, plus `activation`
    (one of `ACTIVATION_PARAM_COUNTS`: relu, relu6, clip, leaky_relu, sigmoid,
    tanh, hard_sigmoid, hard_swish, silu, gelu, gelu_tanh, none) and its
    `activation_params` (clip: [min, max]; leaky_relu: [alpha];
    hard_sigmoid: [alpha, beta]).
    """

    name = "nn.fused_conv"

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        return ConvOp.infer_result_types(operands, props)


@irdl_op_definition
class FusedMatMulOp(FusedActivation, NNOperation):
    """nn.matmul, plus an optional bias over the last result dim, then an activation.

    Like TensorFlow's _FusedMatMul (MatMul + BiasAdd + activation); the type
    rule is nn.matmul's, and `bias` is 1-D with the result's last dim.
    """

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    name = "nn.fused_matmul"
    lhs = operand_def()
    rhs = operand_def()
    bias = opt_operand_def()
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        inferred = MatMulOp.infer_result_types(operands[:2], props)
        if inferred is None or len(operands) < 3:
            return inferred
        result, bias = inferred[0], ranked(operands[2])
        if bias is None or not isinstance(result, TensorType):
            return inferred
        check_same_element_type(result, bias)
        columns = result.get_shape()[-1:]
        if not columns or not dims_compatible(bias.get_shape(), columns):
            raise VerifyException(
                f"bias must be 1-D over the result's last dim {list(columns)}, got {list(bias.get_shape())}"
            )
        return inferred


FUSED_OPS = [FusedConvOp, FusedMatMulOp]
