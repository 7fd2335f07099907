"""bfloat16 inputs over the whole value space through graph-opt's interpreter,
against onnxruntime's float32 computation rounded to bfloat16.

onnxruntime cannot run the bfloat16 model itself: its Python binding takes
no ml_dtypes array, and its CPU kernels for Relu, Abs, Neg, Max, Min,
ArgMax and Where have no bfloat16. The operators here are exact in this
sense: they select, move or compare values (or convert each once, Cast), so
their bfloat16 result is the float32 result on the widened inputs (exact)
rounded once. The rounding keeps a NaN's sign and payload (ml_dtypes' astype
makes NaNs canonical), so data-movement ops are checked bit for bit.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import ml_dtypes
import numpy as np
import onnx
from onnx import numpy_helper

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

BF16 = np.dtype(ml_dtypes.bfloat16)

BF16_CASES = (
    "Relu", "Abs", "Neg", "Max", "Min", "Where", "Cast", "ArgMax", "ArgMin",
    "Clip", "Reshape", "Transpose", "Concat",
)  # fmt: skip
"""special_cases' generators whose ops are exact in the sense above."""


class Bfloat16Pick(RandomPick):
    """special_values' pick whose float arrays are bfloat16."""

    def array(self, dtype, shape: Sequence[int], kind: str = "whole") -> np.ndarray:
        if np.dtype(dtype).kind == "f":
            dtype = BF16
        return super().array(dtype, shape, kind)


def bfloat16_case(name: str, seed: int) -> Case:
    """special_cases' one-node model of `name` with bfloat16 float inputs."""
    return special_case(name, Bfloat16Pick(seed))


def to_bfloat16(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16 (to nearest even); a NaN keeps its
    sign and the top of its payload."""
    nan_bits = (x.view(np.uint32) >> 16).astype(np.uint16).view(BF16)
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(x), nan_bits, x.astype(BF16))


def widened(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` with every bfloat16 input, output and initializer as float32."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    for value in (*graph.input, *graph.output):
        if value.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16:
            value.type.tensor_type.elem_type = onnx.TensorProto.FLOAT
    for index, tensor in enumerate(graph.initializer):
        if tensor.data_type == onnx.TensorProto.BFLOAT16:
            array = numpy_helper.to_array(tensor).astype(np.float32)
            graph.initializer[index].CopyFrom(
                numpy_helper.from_array(array, tensor.name)
            )
    return model


def reference(case: Case) -> list[np.ndarray]:
    """onnxruntime on the widened model, bfloat16 outputs rounded back."""
    inputs = [x.astype(np.float32) if x.dtype == BF16 else x for x in case.inputs]
    results = run_onnxruntime(widened(case.model), inputs)
    narrow = [
        o.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16
        for o in case.model.graph.output
    ]
    return [
        to_bfloat16(np.asarray(r, np.float32)) if n else np.asarray(r)
        for r, n in zip(results, narrow)
    ]


def check_bfloat16_case(case: Case) -> Verdict:
    """The interpreter's result on `case` against `reference`."""
    from graph_opt.interpreter import run_function

    try:
        expected = reference(case)
    except Exception as e:  # onnxruntime does not run every operator and type
        return Verdict(UNJUDGED, f"onnxruntime: {e}"[:200])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            actual = run_function(import_model(case.model), list(case.inputs))
        except Exception as e:  # a refusal or a failure: no wrong number
            return Verdict(ERROR, f"{type(e).__name__}: {e}"[:200])
    return judge(case, expected, actual)
