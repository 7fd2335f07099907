"""Framework names as SSA name hints: `set_name_hint` stores hints without xDSL's
setter, so every hint it makes must be one the setter keeps unchanged."""

from hypothesis import given
from hypothesis import strategies as st
from xdsl.dialects.builtin import f32
from xdsl.ir import Block, SSAValue

from graph_opt.dialects.nn.names import set_name_hint

NAME_CHARS = st.sampled_from("ab_Z09.-$/:é ")


def fresh_value() -> SSAValue:
    return Block(arg_types=[f32]).args[0]


@given(st.text(NAME_CHARS, max_size=12) | st.text(max_size=8))
def test_hints_are_valid_and_kept_by_xdsl(name):
    value = fresh_value()
    holds_name = set_name_hint(value, name)
    hint = value.name_hint
    if hint is not None:
        assert SSAValue.extract_valid_name(hint) == hint
    assert holds_name == ((hint or "") == name)


def test_examples():
    cases = {
        "conv1": ("conv1", True),
        "add_3": ("add", False),
        "x_1_2": ("x", False),
        "3x": ("v3x", False),
        "a/b:0": ("a_b", False),
        "a/b:x": ("a_b_x", False),
        "": (None, True),  # nothing to record
    }
    for name, expected in cases.items():
        value = fresh_value()
        holds_name = set_name_hint(value, name)
        assert (value.name_hint, holds_name) == expected, name
