"""The ONNX round trip (import, then export) checked against onnxruntime and onnx's backend tests.

Used by the test suite and `bench/onnx_coverage.py`; needs onnxruntime (imported lazily).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import onnx
from xdsl.dialects.builtin import ModuleOp

from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model

PASSED = "passed"
FAILED = "failed"
RUNTIME_UNSUPPORTED = "runtime-unsupported"
"""Neither onnxruntime nor onnx's reference evaluator reproduces the expected outputs
from the original model, so the round trip cannot be judged."""
WRONG = "wrong"
"""The interpreter ran a case holding an `nn.opaque` and gave other outputs."""
REFUSED = "refused"
"""The interpreter raised on a case holding an `nn.opaque`: no wrong number."""


@dataclass(frozen=True)
class CaseResult:
    name: str
    roundtrip: str
    reason: str = ""
    interpreter: str | None = None
    """PASSED, FAILED, or for a case with an `nn.opaque` WRONG (it ran and
    its outputs differ) or REFUSED (it raised); None when it did not import."""
    interpreter_reason: str = ""
    opaque: bool = False
    """Whether the imported case holds an `nn.opaque` (run by onnx.reference)."""


def run_onnxruntime(model: onnx.ModelProto, inputs: Sequence) -> list:
    """The model's outputs in onnxruntime, inputs given in graph-input order."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    options.log_severity_level = 4
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, inputs)))


def run_reference(model: onnx.ModelProto, inputs: Sequence) -> list:
    """The model's outputs from onnx's reference evaluator."""
    from onnx.reference import ReferenceEvaluator

    evaluator = ReferenceEvaluator(model)
    return evaluator.run(None, dict(zip(evaluator.input_names, inputs)))


def assert_similar(expected: Sequence, actual: Sequence, rtol: float, atol: float):
    """The comparison of onnx's backend test runner (shapes, dtypes, then
    allclose) on each tensor; sequences item by item, optionals holding nothing
    as None (the runner compares a sequence's items as if they were lists, and
    cannot compare a 0-d item)."""
    from onnx.backend.test.runner import Runner

    if len(expected) != len(actual):
        raise AssertionError(f"{len(actual)} outputs, not {len(expected)}")
    for want, got in zip(expected, actual):
        if want is None or got is None:
            if want is not got:
                raise AssertionError(f"{got!r:.60} where {want!r:.60} was expected")
        elif isinstance(want, list):
            if not isinstance(got, list):
                raise AssertionError(f"{type(got).__name__}, not a sequence")
            assert_similar(want, got, rtol, atol)
        else:
            Runner.assert_similar_outputs([want], [got], rtol=rtol, atol=atol)


def roundtrip(model: onnx.ModelProto) -> onnx.ModelProto:
    return export_module(import_model(model))


def has_opaque(module: ModuleOp) -> bool:
    return any(isinstance(op, OpaqueOp) for op in module.walk())


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


def check_backend_case(case) -> CaseResult:
    """Round-trip one onnx backend node test case and compare with its expected
    outputs; run it in graph-opt's interpreter too."""
    inputs, expected = case.data_sets[0]
    inputs = [_normalize(x) for x in inputs]
    expected = [_normalize(x) for x in expected]

    def compare(actual):
        assert_similar(expected, actual, case.rtol, case.atol)

    try:
        module = import_model(case.model, validate=_supported_opset(case.model))
        exported = export_module(module)
    except Exception as e:  # every failure of ours is a result to report
        return CaseResult(case.name, FAILED, _first_line(e))
    opaque = has_opaque(module)
    interpreter, interpreter_reason = _check_interpreter(module, inputs, compare)
    if not opaque and interpreter != PASSED:
        interpreter = FAILED
    result = partial(CaseResult, case.name, interpreter=interpreter, opaque=opaque)
    result = partial(result, interpreter_reason=interpreter_reason)
    unsupported = ""
    for run in (run_onnxruntime, run_reference):
        try:
            compare(run(exported, inputs))
            return result(PASSED)
        except Exception as e:  # the runtimes raise many types
            failure = f"{run.__name__}: {_first_line(e)}"
        try:
            compare(run(case.model, inputs))
        except Exception as e:  # this runtime cannot run the case: try the next
            unsupported = unsupported or _first_line(e)
            continue
        return result(FAILED, failure)
    return result(RUNTIME_UNSUPPORTED, unsupported)


def _check_interpreter(module: ModuleOp, inputs, compare) -> tuple[str, str]:
    """PASSED; REFUSED and the first line of what the run raised; or WRONG and
    how its outputs differ."""
    from graph_opt.interpreter import run_function

    try:
        outputs = run_function(module, inputs)
    except Exception as e:  # the interpreter may raise anything on a bug
        return REFUSED, _first_line(e)
    try:
        compare(outputs)
    except Exception as e:  # outputs of another type or structure raise too
        return WRONG, _first_line(e)
    return PASSED, ""


def _supported_opset(model: onnx.ModelProto) -> bool:
    """Whether validation accepts the model's opset. A few cases (Not, opset 1)
    predate it: onnxruntime runs them on legacy support and does not guarantee
    it, as validation says; they are imported without validation."""
    from graph_opt.formats.onnx.validation import MIN_OPSET

    return all(
        o.version >= MIN_OPSET
        for o in model.opset_import
        if o.domain in ("", "ai.onnx")
    )


def _normalize(value):
    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    return value


def backend_cases() -> list:
    """onnx's backend node test cases (each a model with one input/output data set)."""
    from onnx.backend.test.case.node import collect_testcases

    return [c for c in collect_testcases() if c.model is not None and c.data_sets]


def check_all_backend_cases() -> list[CaseResult]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter(
            "ignore"
        )  # the cases' reference code overflows on purpose
        return [check_backend_case(case) for case in backend_cases()]


def counts(results: Sequence[CaseResult]) -> dict[str, tuple[int, int]]:
    """(passed, total) of the round trip (cases onnxruntime can run), of the
    interpreter on cases whose ops are all first-class and on those holding an
    `nn.opaque`; (wrong, total) and (refused, total) of the latter."""
    judged = [r for r in results if r.roundtrip != RUNTIME_UNSUPPORTED]
    interpreted = [r for r in results if r.interpreter is not None]
    first_class = [r for r in interpreted if not r.opaque]
    opaque = [r for r in interpreted if r.opaque]

    def count(rs: list[CaseResult], state: str) -> tuple[int, int]:
        return sum(r.interpreter == state for r in rs), len(rs)

    return {
        "roundtrip": (sum(r.roundtrip == PASSED for r in judged), len(judged)),
        "runtime_unsupported": (len(results) - len(judged), len(results)),
        "interpreter": count(first_class, PASSED),
        "interpreter_opaque": count(opaque, PASSED),
        "interpreter_opaque_wrong": count(opaque, WRONG),
        "interpreter_opaque_refused": count(opaque, REFUSED),
    }
