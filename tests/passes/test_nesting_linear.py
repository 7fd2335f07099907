"""Deeply nested regions cost optimize linear work: cse and dce ask each op's
memory effects once, walks keep xDSL's order without a generator per level, and
IsolatedFromAbove is checked with the same errors (times are in bench/nesting.py)."""

from __future__ import annotations

import pytest
from xdsl import traits
from xdsl.utils.exceptions import VerifyException

from bench.nesting import nested_ifs
from graph_opt.api import parse
from graph_opt.passes.optimize import (
    eliminate_common_subexpressions,
    eliminate_dead_code,
)
from graph_opt.rewriting.op_dispatch import walk_ops


def count_effect_queries(monkeypatch) -> list[int]:
    """Count how often the effects of a region op are gathered from its body."""
    calls = [0]
    original = traits.RecursiveMemoryEffect.get_effects

    def counted(trait, op):
        calls[0] += 1
        return original(op)

    monkeypatch.setattr(traits.RecursiveMemoryEffect, "get_effects", counted)
    return calls


@pytest.mark.parametrize(
    "eliminate", [eliminate_common_subexpressions, eliminate_dead_code]
)
def test_effects_of_each_nested_if_are_gathered_once(monkeypatch, eliminate):
    relu = "nn.relu %x : (tensor<2x2xf32>) -> tensor<2x2xf32>"
    module = parse(
        nested_ifs(60).replace(f"%a59 = {relu}", f"%a59 = {relu}\n%b = {relu}")
    )
    calls = count_effect_queries(monkeypatch)
    assert eliminate(module)  # the duplicate relu goes
    assert 0 < calls[0] <= 2 * 60  # at most twice per scf.if; it was 1,830


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("region_first", [False, True])
def test_walk_ops_keeps_xdsls_order(reverse, region_first):
    module = parse(nested_ifs(5))
    expected = list(module.body.walk(reverse=reverse, region_first=region_first))
    assert list(walk_ops(module.body, reverse, region_first)) == expected


def test_a_value_from_outside_an_isolated_op_is_still_refused():
    module = parse(nested_ifs(3))
    outer = module.body.block.first_op
    inner_relu = next(op for op in outer.walk() if op.name == "nn.relu")
    other = parse(nested_ifs(1)).body.block.first_op
    inner_relu.operands[0] = other.body.block.args[1]
    with pytest.raises(VerifyException, match="defined out of its IsolatedFromAbove"):
        outer.verify()
