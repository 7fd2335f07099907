"""TensorFlow ops on special values (fixtures/special_ops.pbtxt, written with
TensorFlow's outputs by make_special_fixtures.py): graph-opt's interpreter
agrees with TensorFlow, or differs only where graph-opt's documented rules
say (docs/guarantees.md, "Special values")."""

from pathlib import Path

import pytest

from graph_opt.testing.special_differential import AGREE, DISAGREE, RULE
from graph_opt.testing.special_tensorflow import FLUSH_RULE, check_fixture

FIXTURE = Path(__file__).parent / "fixtures" / "special_ops.pbtxt"


@pytest.fixture(scope="module")
def outcomes():
    return {o.name: o for o in check_fixture(FIXTURE)}


def test_no_output_disagrees_with_tensorflow(outcomes):
    wrong = [
        f"{o.name}: {o.verdict.detail}"
        for o in outcomes.values()
        if o.verdict.state == DISAGREE
    ]
    assert not wrong, "\n".join(wrong)
    assert len(outcomes) > 70


@pytest.mark.parametrize(
    "name",
    [
        "Cast_1", "Cast_2",  # float -> int8 / uint8 clamps: 300.5 -> 127, NaN -> -128
        "FloorDiv_1",  # int32 max // -3 = -715827883 (x - floor_mod(x, y) overflowed)
        "Range", "Range_1",  # start + i * delta in float32, not a running sum
        "ArgMax_2", "ArgMin_2",  # a leading NaN does not win, as it does in ONNX
    ],
)  # fmt: skip
def test_tensorflow_semantics_kept_exactly(outcomes, name):
    assert outcomes[name].verdict.state == AGREE, outcomes[name].verdict.detail


def test_rules_are_the_documented_ones(outcomes):
    """Subnormal flushing explains most differences; the rest are the NaN
    rules of MaxPool and Softmax and FloorDiv's flushed quotient."""
    ruled = {o.op_type for o in outcomes.values() if o.verdict.state == RULE}
    other = {
        o.op_type
        for o in outcomes.values()
        if o.verdict.state == RULE and o.verdict.detail != FLUSH_RULE
    }
    assert other == {"MaxPool", "Softmax", "FloorDiv"}
    assert {"Sqrt", "Mul", "Cast"} <= ruled
