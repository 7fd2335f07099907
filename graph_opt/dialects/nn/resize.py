"""Resize (ONNX's Resize without roi, cubic or antialias): nearest and n-linear."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, StringAttr
from xdsl.ir import Attribute
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
    int_list,
    str_value,
)
from graph_opt.dialects.nn.shapes import ranked, tensor_type

RESIZE_MODES = ("nearest", "linear")
COORDINATE_MODES = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
KEEP = -1
"""A `sizes` entry that keeps the input's dim."""


@irdl_op_definition
class ResizeOp(NNOperation):
    """Resample the input to the output shape `sizes` (-1 keeps a dim), as ONNX's Resize with
    `mode`, `coordinate_transformation_mode` and `nearest_mode` (ONNX's defaults:
    nearest, half_pixel, round_prefer_floor); the scale of an axis is out / in."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {
        "mode": "nearest",
        "coordinate_transformation_mode": "half_pixel",
        "nearest_mode": "round_prefer_floor",
    }

    name = "nn.resize"
    input = operand_def()
    output = result_def()
    sizes = prop_def(DenseArrayBase)
    mode = opt_prop_def(StringAttr)
    coordinate_transformation_mode = opt_prop_def(StringAttr)
    nearest_mode = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @property
    def resize_mode(self) -> str:
        return str_value(self.properties, "mode", "nearest")

    @property
    def coordinate_mode(self) -> str:
        return str_value(
            self.properties, "coordinate_transformation_mode", "half_pixel"
        )

    @property
    def rounding(self) -> str:
        return str_value(self.properties, "nearest_mode", "round_prefer_floor")

    def verify_properties(self) -> None:
        for value, allowed in (
            (self.resize_mode, RESIZE_MODES),
            (self.coordinate_mode, COORDINATE_MODES),
            (self.rounding, NEAREST_MODES),
        ):
            if value not in allowed:
                raise VerifyException(f"{value!r} is not one of {allowed}")

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        sizes = int_list(props, "sizes") or ()
        if any(d <= 0 and d != KEEP for d in sizes):
            raise VerifyException(f"sizes {list(sizes)} must be positive or -1")
        x = ranked(operands[0])
        if x is None:
            return None
        if len(sizes) != x.get_num_dims():
            raise VerifyException(
                f"sizes {list(sizes)} do not match rank {x.get_num_dims()}"
            )
        out = [d if s == KEEP else s for d, s in zip(x.get_shape(), sizes)]
        return [tensor_type(x.element_type, out)]


RESIZE_OPS: Sequence[type[NNOperation]] = [ResizeOp]
