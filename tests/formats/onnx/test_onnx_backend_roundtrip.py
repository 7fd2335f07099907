"""onnx's backend node test cases, imported and exported again, run in onnxruntime
(or onnx's reference evaluator where onnxruntime cannot run the original) and
in graph-opt's interpreter (`nn.opaque` run by onnx's reference evaluator and
graph-opt's overrides of it)."""

from fnmatch import fnmatchcase

import pytest

from graph_opt.formats.onnx.conformance import (
    FAILED,
    PASSED,
    REFUSED,
    RUNTIME_UNSUPPORTED,
    WRONG,
    check_all_backend_cases,
    counts,
)

_NARROW_DTYPES = (
    "dtypes.numpy_dtype has no float4/int4/int2/e8m0 (dialects/nn/dtypes.py)"
)

KNOWN_FAILURES: dict[str, str] = {}
"""Round-trip failures, by case name pattern (fnmatch), with the reason."""

_FLOAT8_SATURATION = (
    "saturating casts to E4M3FNUZ/E5M2/E5M2FNUZ differ from onnx's reference "
    "(interpreter/tensor_ops.py saturated)"
)

KNOWN_INTERPRETER_FAILURES = {
    **{
        f"{op}_*{dtype}*": _NARROW_DTYPES
        for op in ("test_cast", "test_castlike")
        for dtype in ("INT4", "INT2", "FLOAT4E2M1")
    },
    "test_cast_e8m0_*": _NARROW_DTYPES,
    **{
        f"{op}_FLOAT*_to_FLOAT8{target}{suffix}": _FLOAT8_SATURATION
        for op, suffix in (("test_cast", ""), ("test_castlike", "_expanded"))
        for target in ("E4M3FNUZ", "E5M2", "E5M2FNUZ")
    },
}
"""Interpreter failures (cases whose ops are all first-class), by name pattern."""

KNOWN_OPAQUE_WRONG = {
    "test_bernoulli*": "random outputs (Bernoulli draws; onnxruntime cannot run it)",
    "test_range_*16_type_positive_delta_expanded": (
        "Range as a Loop in 16-bit floats: onnx's reference evaluator (which "
        "runs the Loop) gives the same values; onnxruntime cannot run it"
    ),
    "test_attention_4d_causal_fp16_expanded": (
        "float16 rounding: 4.9e-4 off against the case's atol of 1e-7"
    ),
}
"""Cases holding an `nn.opaque` whose interpreter outputs differ from the
expected ones, by name pattern, with the reason: none is an operator that
onnx's reference evaluator computes wrong (those have overrides)."""


@pytest.fixture(scope="module")
def results():
    return check_all_backend_cases()


def _known(name: str, patterns) -> bool:
    return any(fnmatchcase(name, p) for p in patterns)


def test_every_case_round_trips_except_known_failures(results):
    unexpected = [
        f"{r.name}: {r.reason}"
        for r in results
        if r.roundtrip == FAILED and not _known(r.name, KNOWN_FAILURES)
    ]
    assert not unexpected, "\n".join(unexpected)


def test_known_failures_still_fail(results):
    for pattern in KNOWN_FAILURES:
        matched = [r for r in results if fnmatchcase(r.name, pattern)]
        assert matched, f"{pattern} matches no case"
        fixed = [r.name for r in matched if r.roundtrip == PASSED]
        assert not fixed, f"fixed, drop from KNOWN_FAILURES: {fixed}"


def test_most_cases_can_be_judged(results):
    passed, total = counts(results)["roundtrip"]
    unsupported = [r.name for r in results if r.roundtrip == RUNTIME_UNSUPPORTED]
    assert total > 1800 and passed > 1800
    assert len(unsupported) < 30, unsupported


def test_interpreter_matches_expected_outputs(results):
    interpreted = [r for r in results if r.interpreter is not None and not r.opaque]
    unexpected = [
        f"{r.name}: {r.interpreter_reason}"
        for r in interpreted
        if r.interpreter == FAILED and not _known(r.name, KNOWN_INTERPRETER_FAILURES)
    ]
    assert not unexpected, "\n".join(unexpected)
    for pattern in KNOWN_INTERPRETER_FAILURES:
        matched = [r for r in interpreted if fnmatchcase(r.name, pattern)]
        assert matched, f"{pattern} matches no interpreted case"
        fixed = [r.name for r in matched if r.interpreter == PASSED]
        assert not fixed, f"fixed, drop from KNOWN_INTERPRETER_FAILURES: {fixed}"
    assert len(interpreted) > 100


def test_interpreter_gives_no_wrong_outputs_on_opaque_cases(results):
    """On a case holding an nn.opaque the interpreter may refuse (raise), but
    outputs it gives match the expected ones, but for the known cases."""
    opaque = [r for r in results if r.opaque and r.interpreter is not None]
    unexpected = [
        f"{r.name}: {r.interpreter_reason}"
        for r in opaque
        if r.interpreter == WRONG and not _known(r.name, KNOWN_OPAQUE_WRONG)
    ]
    assert not unexpected, "\n".join(unexpected)
    for pattern in KNOWN_OPAQUE_WRONG:
        matched = [r for r in opaque if fnmatchcase(r.name, pattern)]
        assert matched, f"{pattern} matches no opaque case"
        fixed = [r.name for r in matched if r.interpreter != WRONG]
        assert not fixed, f"fixed, drop from KNOWN_OPAQUE_WRONG: {fixed}"
    passed, total = counts(results)["interpreter_opaque"]
    refused, _ = counts(results)["interpreter_opaque_refused"]
    assert total > 1000 and passed >= 1100 and refused <= 72
    assert {r.interpreter for r in opaque} <= {PASSED, WRONG, REFUSED}
