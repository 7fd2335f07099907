"""Ops that rearrange or describe shapes: reshape."""

from __future__ import annotations

import math

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import GENERIC_FORMAT, NNOperation, int_value
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.shapes import DYN, ranked


def reshaped(
    in_shape: tuple[int, ...] | None, target: list[int], allowzero: bool
) -> tuple[int, ...]:
    """ONNX Reshape's rule: 0 copies the input dim (unless allowzero), -1 is inferred."""
    out = list(target)
    if not allowzero and in_shape is not None:
        out = [
            in_shape[i] if d == 0 and i < len(in_shape) else d
            for i, d in enumerate(out)
        ]
    if out.count(-1) > 1:
        raise VerifyException("reshape target has more than one -1")
    if -1 in out:
        known = math.prod(d for d in out if d != -1)
        if in_shape is None or DYN in in_shape or known == 0:
            return tuple(out)
        total = math.prod(in_shape)
        if total % known:
            raise VerifyException(f"cannot reshape {list(in_shape)} to {target}")
        out[out.index(-1)] = total // known
    elif (
        in_shape is not None
        and DYN not in in_shape
        and math.prod(in_shape) != math.prod(out)
    ):
        raise VerifyException(f"cannot reshape {list(in_shape)} to {target}")
    return tuple(out)


@irdl_op_definition
class ReshapeOp(NNOperation):
    """Reshape `input` to the 1-D i64 `shape` (0 copies a dim unless allowzero, -1 is inferred)."""

    name = "nn.reshape"
    input = operand_def()
    shape = operand_def()
    output = result_def()
    allowzero = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x, target = ranked(operands[0]), constant_value(operands[1])
        if target is None:
            return None
        in_shape = x.get_shape() if x is not None else None
        element = operands[0].type.element_type  # type: ignore[attr-defined]
        out = reshaped(
            in_shape,
            [int(v) for v in target.reshape(-1)],
            bool(int_value(props, "allowzero", 0)),
        )
        return [TensorType(element, out)]
