"""The ONNX operators graph-opt maps to nn ops, on inputs drawn by
hypothesis over the whole value space (NaN payloads, +-inf, +-0,
subnormals, extremes, integer minima and maxima), through the interpreter
and through fold-constants (the folded constants exported), against
onnxruntime. `bench/special_values.py` prints the full table."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from hypothesis_pick import HypothesisPick

from graph_opt.testing.special_cases import SPECIAL_CASES, special_case
from graph_opt.testing.special_differential import (
    AGREE,
    DISAGREE,
    RULE,
    TOLERANCE,
    classify,
)
from graph_opt.testing.special_values import (
    MODERATE,
    special_floats,
    special_ints,
)

pytest.importorskip("onnxruntime")


class SpecialPick(HypothesisPick):
    """special_cases' pick over hypothesis: arrays mix the special values with
    any float of the type (subnormals, NaN and infinities included)."""

    def array(self, dtype, shape, kind="whole"):
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            elements = st.booleans()
        elif dtype.kind in "iu":
            elements = st.sampled_from(special_ints(dtype)) | hnp.from_dtype(dtype)
        else:
            specials = st.sampled_from(special_floats(dtype, kind))
            width = 8 * dtype.itemsize
            bound = 1e3 if kind == MODERATE else None
            anything = st.floats(
                -bound if bound else None, bound, width=width,
                allow_nan=bound is None, allow_infinity=bound is None,
            )  # fmt: skip
            elements = specials | anything
        return self.data.draw(hnp.arrays(dtype, tuple(shape), elements=elements))


@pytest.mark.parametrize("name", sorted(SPECIAL_CASES))
@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,  # the same cases on every run: bench/special_values.py explores
)
@given(data=st.data())
def test_mapped_op_agrees_with_onnxruntime_on_special_values(name, data):
    from graph_opt.testing.special_differential import check_case

    outcome = check_case(special_case(name, SpecialPick(data)))
    for path, verdict in (("interpreter", outcome.interpreter), ("fold", outcome.fold)):
        assert verdict.state != DISAGREE, (
            f"{outcome.case.name}: {path}: {verdict.detail}"
        )


def test_classes_of_difference():
    nan = np.float32("nan")
    want = np.array([1.0, nan, 0.0, 2.0], np.float32)
    assert classify(want, want.copy())[0] == AGREE
    assert classify(want, np.array([1.0, nan, -0.0, 2.0], np.float32))[0] == TOLERANCE
    one_ulp = np.nextafter(np.float32(2), np.float32(3))
    assert (
        classify(want, np.array([1.0, nan, 0.0, one_ulp], np.float32))[0] == TOLERANCE
    )
    assert classify(want, np.array([1.0, 1.0, 0.0, 2.0], np.float32))[0] == DISAGREE
    assert classify(want, np.array([1.0, nan, 0.0, 2.01], np.float32))[0] == DISAGREE


def test_rules_classify_only_their_cases():
    """ReduceMax's NaN rule explains graph-opt's NaN, not a wrong number."""
    from graph_opt.testing.opaque_differential import Case
    from graph_opt.testing.special_differential import judge

    x = np.array([[1.0, np.nan, 3.0]], np.float32)
    case = Case("ReduceMax", "ReduceMax", None, (x,))  # type: ignore[arg-type]
    onnxruntime = [np.array([3.0], np.float32)]
    assert judge(case, onnxruntime, [np.array([np.nan], np.float32)]).state == RULE
    assert judge(case, onnxruntime, [np.array([1.0], np.float32)]).state == DISAGREE
