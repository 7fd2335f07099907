"""convert-to-int{recipe=...}: the float boundaries (nn.quantize of a float
value to int8, nn.dequantize of an int8 value) compute as the recipe's
runtime computes QUANTIZE and DEQUANTIZE (their `arithmetic`)."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, StringAttr

from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.qint import (
    DequantizeOp,
    QuantizationOp,
    QuantizeOp,
    is_unsigned,
)
from graph_opt.quantization.runtime_recipes import BOUNDARY_ARITHMETIC, is_int8
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, count

BOUNDARY_STATISTICS: Statistics = {
    "float boundaries in recipe {recipe}": "Quantizes and dequantizes computing as the recipe's runtime",
    "float boundaries left ONNX's: {reason}": "Those left ONNX's arithmetic, by reason",
}


def follow_recipe_at_boundaries(module: ModuleOp, recipe: str) -> None:
    """Give each activation quantize and dequantize of int8 values the
    arithmetic of `recipe`'s runtime; count (and warn of) those that cannot."""
    arithmetic = BOUNDARY_ARITHMETIC.get(recipe)
    if arithmetic is None:
        return
    changed, left = 0, []
    for op in module.walk():
        if not isinstance(op, QuantizationOp) or not _is_activation(op):
            continue
        reason = _reason(op)
        if reason is not None:
            left.append(f"{op.name}: {reason}")
            count(f"float boundaries left ONNX's: {reason}")
            continue
        name = arithmetic[0] if isinstance(op, QuantizeOp) else arithmetic[1]
        if name != op.ARITHMETIC[0]:
            op.properties["arithmetic"] = StringAttr(name)
        changed += 1
    count(f"float boundaries in recipe {recipe}", changed)
    if left:
        warn(f"convert-to-int: {len(left)} quantizes and dequantizes keep ONNX's "
             f"arithmetic, not recipe={recipe}'s (first: {left[0]})")  # fmt: skip


def _is_activation(op: QuantizationOp) -> bool:
    """Not a dequantized weight (TFLite keeps weights int8 in their layer)."""
    return not isinstance(op, DequantizeOp) or constant_value(op.input) is None


def _reason(op: QuantizationOp) -> str | None:
    integer = op.output if isinstance(op, QuantizeOp) else op.input
    if not is_int8(integer) or is_unsigned(integer.type.element_type):
        return "not int8"
    if len(op.scales) != 1 or op.axis is not None:
        return "per axis"
    return None
