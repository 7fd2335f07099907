"""The trait workarounds, against xDSL's own traits."""

from __future__ import annotations

import pytest
from xdsl import traits
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf
from xdsl.dialects.test import Test
from xdsl.parser import Parser
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

from graph_opt.xdsl_compat.traits import (
    XDSL_ISOLATION_VERIFY,
    effects_memoized,
    linear_isolation_verify,
)


def parsed(text: str):
    ctx = Context()
    for dialect in (Builtin, Func, Scf, Test):
        ctx.load_dialect(dialect)
    return Parser(ctx, text).parse_module()


ESCAPING = """
%outer = "test.op"() : () -> i32
func.func @f() {
  %inner = "test.op"(%outer) : (i32) -> i32
  func.return
}
"""


def test_xdsl_isolation_verify_is_a_method_of_the_trait():
    assert XDSL_ISOLATION_VERIFY.__module__ == "xdsl.traits"
    assert IsolatedFromAbove.__dict__["verify"] in (
        XDSL_ISOLATION_VERIFY,
        linear_isolation_verify,
    )


@pytest.mark.parametrize("verify", [XDSL_ISOLATION_VERIFY, linear_isolation_verify])
def test_both_checks_raise_xdsls_error(verify):
    module = parsed(ESCAPING)
    function = module.body.block.last_op
    with pytest.raises(VerifyException, match="defined out of its IsolatedFromAbove"):
        verify(IsolatedFromAbove(), function)


@pytest.mark.parametrize("verify", [XDSL_ISOLATION_VERIFY, linear_isolation_verify])
def test_both_checks_accept_values_from_inside(verify):
    module = parsed(
        'func.func @f(%a: i1) {\n  scf.if %a {\n    %x = "test.op"() : () -> i32\n'
        '    "test.op"(%x, %a) : (i32, i1) -> ()\n  }\n  func.return\n}'
    )
    verify(IsolatedFromAbove(), module.body.block.first_op)


def test_recursive_effects_look_get_effects_up_in_xdsl_traits():
    """effects_memoized swaps `xdsl.traits.get_effects`: RecursiveMemoryEffect
    must find it there at call time, and xDSL's is back afterwards."""
    module = parsed(
        'func.func @f(%a: i1) {\n  scf.if %a {\n    "test.op"() : () -> ()\n  }\n'
        "  func.return\n}"
    )
    if_op = module.body.block.first_op.body.block.first_op
    original = traits.get_effects
    asked = []

    with effects_memoized():
        memoized = traits.get_effects
        assert memoized is not original

        def spy(op):
            asked.append(op)
            return memoized(op)

        traits.get_effects = spy
        try:
            first = traits.get_effects(if_op)
            second = traits.get_effects(if_op)
        finally:
            traits.get_effects = memoized
    assert traits.get_effects is original
    assert first == second == original(if_op)
    assert len(asked) > 2  # the nested ops were asked through the module function
