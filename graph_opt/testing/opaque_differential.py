"""ONNX operators graph-opt imports as `nn.opaque`, run by graph-opt and by onnxruntime.

graph-opt computes an `nn.opaque` with onnx's reference evaluator
(`formats/onnx/opaque_eval.py`, and its overrides in
`interpreter/onnx_overrides.py`), in the interpreter and when fold-constants
folds one. Each case here is a one-node model: its outputs from graph-opt's
interpreter, and the constants fold-constants makes of it with constant
inputs, are compared with onnxruntime's. Needs onnxruntime (imported lazily).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import onnx

from graph_opt.dialects.nn.dtypes import float_info, is_float_dtype
from graph_opt.formats.onnx.conformance import (
    backend_cases,
    has_opaque,
    run_onnxruntime,
)
from graph_opt.formats.onnx.importer import import_model
from graph_opt.formats.onnx.op_table import IMPORTERS, load_mappings
from graph_opt.passes.common.opaque_folding import RANDOM_ONNX_OPS

OPSETS = range(13, 22)
"""The default-domain opsets whose operators are checked."""


AGREE = "agree"
DISAGREE = "disagree"
ORT_WRONG = "onnxruntime wrong"
"""graph-opt disagrees with onnxruntime and agrees with the operator's
definition (the expected outputs of onnx's backend case)."""
ERROR = "error"
"""graph-opt raised (for the interpreter: also a refusal, which is no wrong number)."""
KEPT = "kept"
"""fold-constants left the op unfolded."""
UNJUDGED = "unjudged"
"""onnxruntime cannot run the case, or its outputs are random."""


@dataclass(frozen=True)
class Case:
    """A model of one operator (its inputs a graph input each) and input values."""

    op_type: str
    name: str
    model: onnx.ModelProto
    inputs: tuple[np.ndarray, ...]
    spec: tuple[np.ndarray, ...] | None = None
    """The outputs the operator's definition gives (a backend case's), if known."""


@dataclass(frozen=True)
class Outcome:
    case: Case
    interpreter: str
    interpreter_error: float
    fold: str
    fold_error: float
    detail: str = ""


def opaque_op_types() -> list[str]:
    """Default-domain operators of opsets 13 to 21 that the importer has no
    mapping for (they always import as `nn.opaque`)."""
    load_mappings()
    names = set()
    for schema in onnx.defs.get_all_schemas_with_history():
        if schema.domain not in ("", "ai.onnx") or schema.name in names:
            continue
        for opset in OPSETS:
            try:
                current = onnx.defs.get_schema(schema.name, opset, "")
            except onnx.defs.SchemaError:
                continue
            if not current.deprecated:
                names.add(schema.name)
                break
    return sorted(names - set(IMPORTERS))


def backend_opaque_cases() -> Iterator[Case]:
    """onnx's backend node cases of one node that graph-opt imports as an
    `nn.opaque` (any operator: mapped ones keep some attributes opaque)."""
    for case in backend_cases():
        graph = case.model.graph
        if len(graph.node) != 1 or graph.initializer:
            continue
        try:
            module = import_model(case.model)
        except Exception:  # the round trip's tests judge what fails to import
            continue
        values, outputs = case.data_sets[0]
        sequences = any(isinstance(x, list) for x in [*values, *outputs])
        if has_opaque(module) and not sequences:  # tensors only
            inputs = tuple(_array(x) for x in values)
            spec = tuple(_array(x) for x in outputs)
            yield Case(graph.node[0].op_type, case.name, case.model, inputs, spec)


def check_case(case: Case) -> Outcome:
    """graph-opt's interpreter and fold-constants on `case`, against onnxruntime."""
    from graph_opt.interpreter import run_function

    try:
        expected = [np.asarray(x) for x in run_onnxruntime(case.model, case.inputs)]
    except Exception as e:  # onnxruntime does not run every operator and type
        return Outcome(case, UNJUDGED, 0.0, UNJUDGED, 0.0, f"onnxruntime: {e}"[:200])
    if case.op_type in RANDOM_ONNX_OPS:  # their values are not compared
        return Outcome(case, UNJUDGED, 0.0, UNJUDGED, 0.0, "random outputs")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            actual = run_function(import_model(case.model), list(case.inputs))
        except Exception as e:  # a refusal, or a failure: either is no wrong number
            actual, detail = None, _first_line(e)
        if actual is None:
            interpreter, interpreter_error = ERROR, 0.0
        else:
            (interpreter, interpreter_error), detail = judge(case, expected, actual), ""
        fold, fold_error = _check_fold(case, expected)
    return Outcome(case, interpreter, interpreter_error, fold, fold_error, detail)


def _check_fold(case: Case, expected: list[np.ndarray]) -> tuple[str, float]:
    """fold-constants on the model with its inputs made initializers: KEPT
    unless every output became a constant, then how those compare."""
    from graph_opt.dialects.nn.constant import ConstantOp
    from graph_opt.passes.fold_constants import FoldConstantsPass
    from graph_opt.passes.fold_constants.fold_constants import fold_constants

    try:
        module = import_model(constant_inputs(case))
        fold_constants(module, FoldConstantsPass.max_size)
    except Exception:  # a failure of the import is the interpreter check's to show
        return ERROR, 0.0
    returned = next(op for op in module.walk() if op.name == "func.return")
    owners = [v.owner for v in returned.operands]
    if not all(isinstance(o, ConstantOp) for o in owners):
        return KEPT, 0.0
    folded = [o.to_array() for o in owners]  # type: ignore[union-attr]
    return judge(case, expected, folded)


def judge(case: Case, expected: list, actual: list) -> tuple[str, float]:
    """`compare` with onnxruntime's outputs, and where they differ, ORT_WRONG
    when `actual` agrees with the case's spec outputs."""
    verdict, error = compare(expected, actual)
    if verdict == DISAGREE and case.spec is not None:
        if compare(case.spec, actual)[0] == AGREE:
            return ORT_WRONG, error
    return verdict, error


def constant_inputs(case: Case) -> onnx.ModelProto:
    """`case.model` with its graph inputs replaced by initializers of `case.inputs`."""
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    graph = model.graph
    for value_info, array in zip(graph.input, case.inputs):
        graph.initializer.append(onnx.numpy_helper.from_array(array, value_info.name))
    del graph.input[:]
    return model


def compare(expected: Sequence, actual: Sequence) -> tuple[str, float]:
    """AGREE when shapes and dtypes match and values are close (floats to the
    tolerance of their type, relative to the largest expected magnitude for
    sums such as DFT's; exactly otherwise); the largest absolute error."""
    if len(expected) != len(actual):
        return DISAGREE, float("inf")
    verdict, worst = AGREE, 0.0
    for want, got in zip(expected, actual):
        want, got = np.asarray(want), np.asarray(got)
        if want.shape != got.shape or want.dtype != got.dtype:
            return DISAGREE, float("inf")
        if want.dtype == object or want.size == 0:
            if not np.array_equal(want, got):
                verdict = DISAGREE
            continue
        error = _max_error(want, got)
        worst = max(worst, error)
        rtol, atol = _tolerance(want.dtype)
        scale = max(1.0, float(np.max(np.abs(want[np.isfinite(want)]), initial=0)))
        if not np.allclose(got, want, rtol, atol * scale, equal_nan=True):
            verdict = DISAGREE
    return verdict, worst


def _max_error(want: np.ndarray, got: np.ndarray) -> float:
    want, got = np.atleast_1d(want, got)
    diff = np.abs(want.astype(np.float64) - got.astype(np.float64))
    diff[want == got] = 0.0  # equal infinities
    return float(np.nanmax(diff, initial=0.0))


def _tolerance(dtype: np.dtype) -> tuple[float, float]:
    if not is_float_dtype(dtype):
        return 0.0, 0.0
    if dtype.itemsize >= 4:
        return 1e-4, 1e-5
    return max(1e-2, 2 * float(float_info(dtype).eps)), 1e-2


def _array(value) -> np.ndarray:
    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    return np.asarray(value)


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:200]
