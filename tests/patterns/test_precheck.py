"""The matcher's cheap work: the root's checks before any bindings, failures
built only when explained, trait lookups once per op class, a deferring
rewrite that asks the farthest user first and keeps what it found."""

import numpy as np
import pytest
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.traits import Commutative, ConstantLike

import graph_opt.patterns.matcher as matcher_module
import graph_opt.patterns.rewrite as rewrite_module
from graph_opt import api
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dense import from_numpy
from graph_opt.passes.common.fusion_patterns import FUSION_PATTERNS, FuseLayerNorm
from graph_opt.patterns import explain, is_constant, is_op, wildcard
from graph_opt.patterns.arithmetic import scalar
from graph_opt.patterns.matcher import _attempt, match_value
from graph_opt.patterns.pattern import has_trait
from graph_opt.testing.model_zoo import bert_encoder, mobilenet_v2

T = "tensor<1x4xf32>"
RESIDUAL = f"""func.func @f(%x: {T}, %y: {T}) -> {T} {{
  %r = nn.relu %x : ({T}) -> {T}
  %t = nn.tanh %y : ({T}) -> {T}
  %sum = nn.add %r, %t : ({T}, {T}) -> {T}
  func.return %sum : {T}
}}"""


@pytest.fixture
def count_calls(monkeypatch):
    """count_calls(module, name): a list that grows by one per call of `module.name`."""

    def install(module, name: str) -> list:
        calls: list = []
        original = getattr(module, name)

        def counting(*args, **kwargs):
            calls.append(args)
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, counting)
        return calls

    return install


def test_operand_names_decline_before_any_matcher(parse, value, count_calls):
    """An add of a relu and a tanh cannot be a conv plus a constant: no Matcher is made."""
    made = count_calls(matcher_module, "Matcher")
    pattern = is_op("nn.conv")(wildcard(), wildcard()) + is_constant()
    assert match_value(pattern, value(parse(RESIDUAL), "sum")) is None
    assert made == []


def test_operand_names_that_may_match_are_matched(parse, value):
    pattern = is_op("nn.relu")(wildcard()) + is_op("nn.tanh")(wildcard())
    found = match_value(pattern, value(parse(RESIDUAL), "sum"))
    assert found is not None and found.op(pattern).name == "nn.add"


def test_commuted_operands_pass_the_precheck(parse, value):
    """nn.add is commutative: tanh + relu matches relu + tanh with its operands swapped."""
    pattern = is_op("nn.tanh")(wildcard()) + is_op("nn.relu")(wildcard())
    assert match_value(pattern, value(parse(RESIDUAL), "sum")) is not None


def test_no_failures_built_when_only_matching(parse, value, count_calls):
    built = count_calls(matcher_module, "Failure")
    pattern = is_op("nn.relu")(wildcard()) + is_op("nn.relu")(wildcard())
    assert match_value(pattern, value(parse(RESIDUAL), "sum")) is None
    assert built == []


def test_explain_still_names_the_failing_operand(parse):
    module = parse(RESIDUAL)
    add = next(op for op in module.walk() if op.name == "nn.add")
    pattern = is_op("nn.relu")(wildcard()) + is_op("nn.relu")(wildcard())
    text = explain(pattern, add)
    assert "does not match" in text and "op is nn.tanh, expected nn.relu" in text


def test_trait_lookup_agrees_with_the_op(parse):
    module = parse(RESIDUAL)
    for op in module.walk():
        for trait in (Commutative, ConstantLike):
            assert has_trait(op, trait) == op.has_trait(trait)


@pytest.mark.parametrize("model", [bert_encoder, mobilenet_v2])
@pytest.mark.parametrize("depth", [0, 1, 3])
def test_precheck_never_declines_a_match(model, depth, monkeypatch):
    """Over every value of a zoo model and every fusion pattern: where the
    full matcher finds a match, the precheck (at any depth) lets it through."""
    module = api.load(model())
    monkeypatch.setattr(matcher_module, "PRECHECK_DEPTH", depth)
    patterns = [p().pattern for p in FUSION_PATTERNS if hasattr(p(), "pattern")]
    matched = 0
    for op in module.walk():
        for result in op.results:
            for pattern in patterns:
                full = _attempt(pattern, result, skip_identity=False)[0]
                fast = match_value(pattern, result)
                assert (full is None) == (fast is None), (pattern, op.name)
                matched += full is not None
    assert matched > 0


def test_layer_norm_defers_without_matching_at_its_own_root(count_calls):
    """At the div of a LayerNorm with gamma and beta, the rewrite asks the
    farthest user that may root a match (the beta add) first and, as that
    match holds the div, matches nothing else: one match attempt."""
    module = api.load(bert_encoder(layers=1))
    div = next(
        op
        for op in module.walk()
        if op.name == "nn.div" and op.results[0].first_use.operation.name == "nn.mul"
    )
    rewrite = FuseLayerNorm()
    attempts = count_calls(rewrite_module, "match_value")
    rewrite.match_and_rewrite(div, None)  # declines: needs no rewriter
    assert [args[1].owner.name for args in attempts] == ["nn.add"]


def test_a_kept_match_serves_its_ops_until_they_change(count_calls):
    """The match found when the div deferred is kept: the gamma mul is left
    for it with no match attempt; once an op of it changes (the mul's operands
    swapped), the beta add's visit matches again instead of trusting it."""
    module = api.load(bert_encoder(layers=1))
    div = next(
        op
        for op in module.walk()
        if op.name == "nn.div" and op.results[0].first_use.operation.name == "nn.mul"
    )
    mul = div.results[0].first_use.operation
    add = mul.results[0].first_use.operation
    rewrite = FuseLayerNorm()
    attempts = count_calls(rewrite_module, "match_value")
    rewrite.match_and_rewrite(div, None)  # defers: needs no rewriter
    rewrite.match_and_rewrite(mul, None)
    assert [args[1].owner.name for args in attempts] == ["nn.add"]
    mul.operands = [mul.operands[1], mul.operands[0]]
    rewrite.match_and_rewrite(add, PatternRewriter(add))
    assert [args[1].owner.name for args in attempts[1:]][-1] == "nn.add"
    assert add.parent is None and any(
        op.name == "nn.layer_norm" for op in module.walk()
    )


SCALARS = f"""func.func @f(%x: {T}) -> {T} {{
  %c = nn.constant dense<3.0> : tensor<f32>
  %y = nn.mul %x, %c : ({T}, tensor<f32>) -> {T}
  func.return %y : {T}
}}"""


def test_scalar_decodes_a_constant_once(parse, value, count_calls):
    decoded = count_calls(ConstantOp, "to_array")
    c = value(parse(SCALARS), "c")
    assert [scalar(c) for _ in range(3)] == [3.0, 3.0, 3.0]
    assert len(decoded) == 1


def test_scalar_follows_a_replaced_constant_value(parse, value):
    """The memo is per attribute object: a new value attribute is read anew."""
    c = value(parse(SCALARS), "c")
    assert scalar(c) == 3.0
    c.owner.properties["value"] = from_numpy(np.array(5.0, np.float32))
    assert scalar(c) == 5.0
