"""The ONNX operators graph-opt imports as nn.opaque, run by graph-opt's
interpreter and folded by fold-constants, against onnxruntime: onnx's backend
node cases and randomized variants (graph_opt/testing/opaque_variants.py).
`bench/opaque_ops.py` prints the full table."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_pick import HypothesisPick

from graph_opt.testing.opaque_differential import (
    DISAGREE,
    backend_opaque_cases,
    check_case,
    opaque_op_types,
)
from graph_opt.testing.opaque_variants import VARIANTS, variant

pytest.importorskip("onnxruntime")


def test_opaque_op_types_are_the_unmapped_operators():
    names = opaque_op_types()
    assert {"LRN", "LpNormalization", "Mean", "GRU"} <= set(names)
    assert not {"Conv", "Relu", "Resize"} & set(names)


def _wrong(outcome) -> str:
    if DISAGREE in (outcome.interpreter, outcome.fold):
        return (
            f"{outcome.case.name}: interpreter {outcome.interpreter} "
            f"(max error {outcome.interpreter_error:.3g}), fold {outcome.fold} "
            f"(max error {outcome.fold_error:.3g})"
        )
    return ""


@pytest.mark.parametrize("op_type", sorted(VARIANTS))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_randomized_variants_agree_with_onnxruntime(op_type, data):
    outcome = check_case(variant(op_type, HypothesisPick(data)))
    assert not _wrong(outcome), _wrong(outcome)


def test_backend_cases_agree_with_onnxruntime_or_the_spec():
    outcomes = [check_case(case) for case in backend_opaque_cases()]
    wrong = [_wrong(o) for o in outcomes if _wrong(o)]
    assert not wrong, "\n".join(wrong)
    assert len(outcomes) > 800
