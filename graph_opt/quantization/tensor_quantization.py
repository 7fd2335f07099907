"""The real-value mapping of an integer tensor, recorded on the op that
computes it: `nn.quantization = {scale = S : f32, zero_point = Z : i64}` (per
tensor; real = (q - Z) * S), or `{scale = array<f32: ...>, zero_point = Z,
axis = A}` (one scale per index of axis A, for weights). convert-to-int
records it on every int8 value it computes, so that exporters whose formats
give each tensor a scale (TFLite) can write them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    f32,
    i64,
)
from xdsl.ir import Operation

from graph_opt.dialects.nn.quant import f32_array, f32_values
from graph_opt.quantization.boundary import QUANTIZATION_ATTR


@dataclass(frozen=True)
class TensorQuantization:
    """scales: float32, one (per tensor) or one per index of `axis`."""

    scales: np.ndarray
    zero_point: int
    axis: int | None = None


def record_quantization(
    op: Operation, scales, zero_point: int, axis: int | None = None
) -> None:
    """Record on `op` the mapping of its (first) result."""
    values = np.asarray(scales, np.float32).ravel()
    entries: dict = {"zero_point": IntegerAttr(int(zero_point), i64)}
    if axis is None:
        entries["scale"] = FloatAttr(float(values[0]), f32)
    else:
        entries["scale"] = f32_array(values)
        entries["axis"] = IntegerAttr(int(axis), i64)
    op.attributes[QUANTIZATION_ATTR] = DictionaryAttr(entries)


def recorded_quantization(op: Operation) -> TensorQuantization | None:
    """The mapping recorded on `op`, if any."""
    entry = op.attributes.get(QUANTIZATION_ATTR)
    if not isinstance(entry, DictionaryAttr):
        return None
    return quantization_of_dict(entry)


def quantization_of_dict(entry: DictionaryAttr) -> TensorQuantization | None:
    scale, zero_point = entry.data.get("scale"), entry.data.get("zero_point")
    axis = entry.data.get("axis")
    if not isinstance(zero_point, IntegerAttr):
        return None
    if isinstance(scale, FloatAttr):
        scales = np.array([scale.value.data], np.float32)
    elif isinstance(scale, DenseArrayBase) and scale.elt_type == f32:
        scales = f32_values(scale).copy()
    else:
        return None
    return TensorQuantization(
        scales,
        zero_point.value.data,
        axis.value.data if isinstance(axis, IntegerAttr) else None,
    )
