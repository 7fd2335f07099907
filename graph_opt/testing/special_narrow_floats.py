"""bfloat16 and float8 inputs over the whole value space through graph-opt's
interpreter, against onnxruntime's float32 computation rounded to the type.

onnxruntime cannot run these models itself: its Python binding takes no
ml_dtypes array, its CPU kernels for Relu, Abs, Neg, Max, Min, ArgMax and
Where have no bfloat16, and ONNX allows float8 only in Cast and
data-movement ops. The operators here are exact in this sense: they select,
move or compare values (or convert each once, Cast), so their result is the
float32 result on the widened inputs (exact) rounded once. The rounding
keeps a NaN's sign and payload both ways where the type has payloads
(ml_dtypes' astype makes NaNs canonical), so data-movement ops are checked bit for bit.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import ml_dtypes
import numpy as np
import onnx
from onnx import helper, numpy_helper

from graph_opt.dialects.nn.dtypes import float_info
from graph_opt.formats.onnx.conformance import run_onnxruntime
from graph_opt.formats.onnx.importer import import_model
from graph_opt.testing.opaque_differential import Case
from graph_opt.testing.special_cases import special_case
from graph_opt.testing.special_differential import (
    ERROR,
    UNJUDGED,
    Verdict,
    judge,
)
from graph_opt.testing.special_values import RandomPick

BF16_CASES = (
    "Relu", "Abs", "Neg", "Max", "Min", "Where", "Cast", "ArgMax", "ArgMin",
    "Clip", "Reshape", "Transpose", "Concat",
)  # fmt: skip
"""special_cases' generators whose ops are exact in the sense above."""

FLOAT8_CASES = ("Cast", "Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze")
"""The ones ONNX (opset 21) allows float8 in."""

NARROW_FLOATS = {
    np.dtype(ml_dtypes.bfloat16): BF16_CASES,
    **{
        np.dtype(t): FLOAT8_CASES
        for t in (
            ml_dtypes.float8_e4m3fn,
            ml_dtypes.float8_e4m3fnuz,
            ml_dtypes.float8_e5m2,
            ml_dtypes.float8_e5m2fnuz,
        )
    },
}
"""The cases each narrow float type is checked on."""


class NarrowFloatPick(RandomPick):
    """special_values' pick whose float arrays have the narrow float `dtype`."""

    def __init__(self, seed: int, dtype: np.dtype) -> None:
        super().__init__(seed)
        self.dtype = dtype

    def array(self, dtype, shape: Sequence[int], kind: str = "whole") -> np.ndarray:
        if np.dtype(dtype).kind == "f":
            dtype = self.dtype
        return super().array(dtype, shape, kind)


def narrow_case(name: str, dtype, seed: int) -> Case:
    """special_cases' one-node model of `name` with `dtype` float inputs."""
    return special_case(name, NarrowFloatPick(seed, np.dtype(dtype)))


def rounded(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """float32 values rounded to `dtype` (to nearest even); a NaN keeps its
    sign and the top of its payload where those bits are a NaN of `dtype`."""
    info = float_info(dtype)
    shift = 23 - info.nmant
    sign = (x.view(np.uint32) >> 31).astype(np.uint16) << (info.bits - 1)
    exponent = ((1 << info.nexp) - 1) << info.nmant
    payload = (x.view(np.uint32) >> shift) & ((1 << info.nmant) - 1)
    word = (sign | exponent | payload).astype(f"u{info.bits // 8}")
    nan = word.view(dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        keep = np.isnan(x) & np.isnan(nan.astype(np.float32))
        return np.where(keep, nan, x.astype(dtype))


def widened_values(x: np.ndarray) -> np.ndarray:
    """Narrow float values as float32 (exactly); a NaN keeps its sign and
    payload (ml_dtypes' astype makes float8 NaNs canonical)."""
    info = float_info(x.dtype)
    word = x.view(f"u{info.bits // 8}").astype(np.uint32)
    sign = (word >> (info.bits - 1)) << 31
    payload = (word & ((1 << info.nmant) - 1)) << (23 - info.nmant)
    nan = (sign | 0x7F800000 | payload).astype(np.uint32).view(np.float32)
    wide = x.astype(np.float32)
    return np.where(np.isnan(wide) & np.isnan(nan), nan, wide)


def widened(model: onnx.ModelProto, dtype: np.dtype) -> onnx.ModelProto:
    """`model` with every `dtype` input, output and initializer as float32."""
    narrow = helper.np_dtype_to_tensor_dtype(dtype)
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    for value in (*graph.input, *graph.output):
        if value.type.tensor_type.elem_type == narrow:
            value.type.tensor_type.elem_type = onnx.TensorProto.FLOAT
    for index, tensor in enumerate(graph.initializer):
        if tensor.data_type == narrow:
            array = widened_values(numpy_helper.to_array(tensor))
            graph.initializer[index].CopyFrom(
                numpy_helper.from_array(array, tensor.name)
            )
    return model


def reference(case: Case, dtype: np.dtype) -> list[np.ndarray]:
    """onnxruntime on the widened model, `dtype` outputs rounded back."""
    inputs = [widened_values(x) if x.dtype == dtype else x for x in case.inputs]
    results = run_onnxruntime(widened(case.model, dtype), inputs)
    narrow = helper.np_dtype_to_tensor_dtype(dtype)
    return [
        rounded(np.asarray(r, np.float32), dtype)
        if o.type.tensor_type.elem_type == narrow
        else np.asarray(r)
        for r, o in zip(results, case.model.graph.output)
    ]


def check_narrow_case(case: Case, dtype) -> Verdict:
    """The interpreter's result on `case` against `reference`."""
    from graph_opt.interpreter import run_function

    dtype = np.dtype(dtype)
    try:
        expected = reference(case, dtype)
    except Exception as e:  # onnxruntime does not run every operator and type
        return Verdict(UNJUDGED, f"onnxruntime: {e}"[:200])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            actual = run_function(import_model(case.model), list(case.inputs))
        except Exception as e:  # a refusal or a failure: no wrong number
            return Verdict(ERROR, f"{type(e).__name__}: {e}"[:200])
    return judge(case, expected, actual)
