"""Real values across integer function boundaries: the codes of float inputs for
arguments carrying `nn.quantization` (what convert-to-int{integer-io=true}
records), and the real values of results carrying it. Quantization is
nn.quantize's (round half to even of x / scale in float32, plus the zero point,
saturated), so the codes are exactly those the float-io graph computes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FloatAttr, IntegerAttr

from graph_opt.dialects.nn.dtypes import is_float_dtype, numpy_dtype
from graph_opt.dialects.nn.shapes import ranked

QUANTIZATION_ATTR = "nn.quantization"


def boundary_quantization(
    attrs: ArrayAttr[DictionaryAttr] | None, index: int
) -> tuple[float, int] | None:
    """(scale, zero point) recorded on an argument or result, if any."""
    entries = attrs.data if attrs is not None else ()
    entry = entries[index].data.get(QUANTIZATION_ATTR) if index < len(entries) else None
    if not isinstance(entry, DictionaryAttr):
        return None
    scale, zero_point = entry.data.get("scale"), entry.data.get("zero_point")
    if not isinstance(scale, FloatAttr) or not isinstance(zero_point, IntegerAttr):
        return None
    return scale.value.data, zero_point.value.data


def quantize_codes(
    x: np.ndarray, scale: float, zero_point: int, dtype: np.dtype
) -> np.ndarray:
    info = np.iinfo(dtype)
    steps = np.rint(np.asarray(x, np.float32) / np.float32(scale))
    return np.clip(steps + zero_point, info.min, info.max).astype(dtype)


def dequantize_codes(q: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    return (q.astype(np.int64) - zero_point).astype(np.float32) * np.float32(scale)


def quantized_inputs(
    function: func.FuncOp, inputs: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """Float inputs of integer arguments with a recorded quantization as their
    codes; other inputs as given."""
    out = []
    for index, (value, arg_type) in enumerate(
        zip(inputs, function.function_type.inputs)
    ):
        params = boundary_quantization(function.arg_attrs, index)
        value = np.asarray(value)
        t = ranked(arg_type)
        if params is None or t is None or not is_float_dtype(value.dtype):
            out.append(value)
            continue
        dtype = np.dtype(numpy_dtype(t.element_type))
        out.append(quantize_codes(value, *params, dtype))
    return out


def dequantized_outputs(
    function: func.FuncOp, outputs: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """Results with a recorded quantization as real values; others as given."""
    return [
        value
        if (params := boundary_quantization(function.res_attrs, index)) is None
        else dequantize_codes(np.asarray(value), *params)
        for index, value in enumerate(outputs)
    ]
