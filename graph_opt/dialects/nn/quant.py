"""Fake quantization: quantize a float tensor to an integer grid and back, in float."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import AnyFloat, BytesAttr, DenseArrayBase, IntegerAttr, f32
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
    check_flag,
    i64_attr,
    int_value,
)
from graph_opt.dialects.nn.shapes import DYN, normalize_axis, ranked

MIN_BITS, MAX_BITS = 2, 16


def f32_array(values: Sequence[float] | np.ndarray) -> DenseArrayBase:
    """An array<f32> holding the values' float32 bytes."""
    data = np.ascontiguousarray(values, dtype="<f4").ravel().tobytes()
    return DenseArrayBase(f32, BytesAttr(data))


def f32_values(attr: Attribute) -> np.ndarray:
    """An array<f32> property as a float32 vector."""
    if not isinstance(attr, DenseArrayBase) or attr.elt_type != f32:
        raise VerifyException(f"expected an array<f32>, got {attr}")
    return np.frombuffer(attr.data.data, dtype=np.float32)


def fake_quant_props(
    mins: Sequence[float] | np.ndarray,
    maxs: Sequence[float] | np.ndarray,
    num_bits: int = 8,
    narrow_range: bool = False,
    axis: int | None = None,
) -> dict[str, Attribute]:
    """The properties of an nn.fake_quant; `axis` makes it per-channel."""
    props: dict[str, Attribute] = {
        "min": f32_array(mins),
        "max": f32_array(maxs),
        "num_bits": i64_attr(num_bits),
    }
    if narrow_range:
        props["narrow_range"] = i64_attr(1)
    if axis is not None:
        props["axis"] = i64_attr(axis)
    return props


@irdl_op_definition
class FakeQuantOp(NNOperation):
    """TensorFlow's FakeQuantWithMinMaxVars(PerChannel): clamp to the nudged
    [min, max], round to one of 2^num_bits levels (one fewer, at the bottom,
    with `narrow_range`), and return the float value of that level.

    `min`/`max` hold one value (per tensor) or one per index of `axis` (per
    channel); the range is nudged so that 0.0 is exactly representable. Any
    range TensorFlow accepts is valid, and computes what TensorFlow computes:
    min == max or min > max, denormal (flushed to zero), NaN or infinite
    bounds (`quantization/fake_quant_math.py`).
    """

    name = "nn.fake_quant"
    input = operand_def()
    output = result_def()
    min = prop_def(DenseArrayBase)
    max = prop_def(DenseArrayBase)
    num_bits = prop_def(IntegerAttr)
    narrow_range = opt_prop_def(IntegerAttr)
    axis = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT
    KEEP_ON_CONSTANTS: ClassVar[bool] = True  # convert-to-int reads a weight's range

    @property
    def mins(self) -> np.ndarray:
        return f32_values(self.min)

    @property
    def maxs(self) -> np.ndarray:
        return f32_values(self.max)

    @property
    def bits(self) -> int:
        return self.num_bits.value.data

    @property
    def is_narrow(self) -> bool:
        return check_flag(self.properties, "narrow_range")

    @property
    def axis_value(self) -> int | None:
        """The channel axis (non-negative when the rank is known), None per tensor."""
        if self.axis is None:
            return None
        axis = self.axis.value.data
        x = ranked(self.input)
        return axis if x is None else normalize_axis(axis, len(x.get_shape()))

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute]:
        return [operands[0].type]

    def verify_properties(self) -> None:
        element = getattr(self.input.type, "element_type", None)
        if element is not None and not isinstance(element, AnyFloat):
            raise VerifyException(
                f"fake_quant needs a float tensor, got {self.input.type}"
            )
        bits = int_value(self.properties, "num_bits", 8)
        if not MIN_BITS <= bits <= MAX_BITS:
            raise VerifyException(
                f"num_bits must be in [{MIN_BITS}, {MAX_BITS}], got {bits}"
            )
        check_flag(self.properties, "narrow_range")
        mins, maxs = self.mins, self.maxs
        if len(mins) != len(maxs) or len(mins) == 0:
            raise VerifyException(
                f"min and max must have the same non-zero length, got {len(mins)} and {len(maxs)}"
            )
        self._verify_channels(len(mins))

    def _verify_channels(self, count: int) -> None:
        if self.axis is None:
            if count != 1:
                raise VerifyException(
                    f"per-channel min/max ({count} values) need an axis"
                )
            return
        x = ranked(self.input)
        if x is None:
            return
        shape = x.get_shape()
        axis = normalize_axis(self.axis.value.data, len(shape))
        if shape[axis] != DYN and shape[axis] != count:
            raise VerifyException(
                f"per-channel min/max have {count} values, but axis {axis} has size {shape[axis]}"
            )
