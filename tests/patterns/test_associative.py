"""Associative matching (add / mul chains in any grouping, division chains) and
lookup of a match by label (TF graph_matcher's OpTypePattern(name=...))."""

import numpy as np
import pytest
from function_text import function_text

from graph_opt.interpreter import run_function
from graph_opt.patterns import DFPatternRewrite, apply_rewrites, is_op, is_var, wildcard
from graph_opt.patterns.builder import nn

T = "tensor<4xf32>"


def chain(body: str, args: str = "%a, %b, %c") -> str:
    return function_text(f"{body}\n  func.return %r : {T}", args, T)


LEFT = chain(
    f"""  %ab = nn.add %a, %b : ({T}, {T}) -> {T}
  %r = nn.add %ab, %c : ({T}, {T}) -> {T}"""
)
RIGHT = chain(
    f"""  %bc = nn.add %c, %b : ({T}, {T}) -> {T}
  %r = nn.add %a, %bc : ({T}, {T}) -> {T}"""
)
ADD_THREE = is_op("add", associative=True)(is_var("a"), is_var("b"), is_var("c"))


@pytest.mark.parametrize("text", [LEFT, RIGHT], ids=["left", "right"])
def test_match_add_chain_in_any_grouping(parse, value, text):
    module = parse(text)
    match = ADD_THREE.match(value(module, "r"))
    assert match is not None
    assert len(match.region) == 2, "the inner add belongs to the match"


def test_no_match_add_chain(parse, value):
    assert ADD_THREE.match(value(parse(LEFT), "ab")) is None, "two leaves, not three"
    mixed = chain(
        f"""  %ab = nn.mul %a, %b : ({T}, {T}) -> {T}
  %r = nn.add %ab, %c : ({T}, {T}) -> {T}"""
    )
    assert ADD_THREE.match(value(parse(mixed), "r")) is None, "a mul breaks the chain"
    shared = chain(
        f"""  %ab = nn.add %a, %b : ({T}, {T}) -> {T}
  %s = nn.add %ab, %c : ({T}, {T}) -> {T}
  %r = nn.mul %s, %ab : ({T}, {T}) -> {T}"""
    )
    assert ADD_THREE.match(value(parse(shared), "s")) is None, (
        "an inner add used elsewhere ends the chain"
    )


DIVIDE_TWICE = chain(
    f"""  %xa = nn.div %x, %a : ({T}, {T}) -> {T}
  %r = nn.div %xa, %b : ({T}, {T}) -> {T}""",
    "%x, %a, %b",
)
DIVIDE_BY_PRODUCT = chain(
    f"""  %ba = nn.mul %b, %a : ({T}, {T}) -> {T}
  %r = nn.div %x, %ba : ({T}, {T}) -> {T}""",
    "%x, %a, %b",
)
X_OVER_A_B = is_op("div", associative=True)(is_var("x"), is_var("a"), is_var("b"))


@pytest.mark.parametrize(
    "text", [DIVIDE_TWICE, DIVIDE_BY_PRODUCT], ids=["twice", "product"]
)
def test_match_division_chain(parse, value, text):
    assert X_OVER_A_B.match(value(parse(text), "r"))


def test_no_match_division_chain(parse, value):
    wrong_numerator = is_op("div", associative=True)(
        is_var("a"), is_var("x"), is_var("b")
    )
    assert wrong_numerator.match(value(parse(DIVIDE_TWICE), "r")) is None
    assert X_OVER_A_B.match(value(parse(DIVIDE_TWICE), "xa")) is None


class ScaleTwice(DFPatternRewrite):
    """x / a / b or x / (a * b) -> x * (1 / (a * b)): one rewrite for both groupings."""

    def __init__(self):
        self.pattern = is_op("div", associative=True)(
            wildcard().named("x"), wildcard().named("a"), wildcard().named("b")
        )

    def rewrite(self, match, rewriter):
        product = nn.mul(match["a"], match["b"])
        return nn.mul(match["x"], nn.reciprocal(product))


@pytest.mark.parametrize(
    "text", [DIVIDE_TWICE, DIVIDE_BY_PRODUCT], ids=["twice", "product"]
)
def test_associative_rewrite_numerically(parse, text):
    module = parse(text)
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(0.5, 2.0, 4).astype(np.float32) for _ in range(3)]
    before = run_function(module, inputs)[0]
    assert apply_rewrites(module, [ScaleTwice()]).total == 1
    module.verify()
    assert "nn.div" not in str(module)
    np.testing.assert_allclose(run_function(module, inputs)[0], before, rtol=1e-6)


def test_match_lookup_by_label(parse, value):
    module = parse(LEFT)
    pattern = is_op("add", name="sum")(wildcard().named("lhs"), is_var("c"))
    match = pattern.match(value(module, "r"))
    assert match is not None
    assert match["sum"] is value(module, "r")
    assert match["lhs"].name_hint == "ab"
    assert match.op("sum").name == "nn.add"
    assert "lhs" in match and "nope" not in match


def test_no_match_lookup_by_label(parse, value):
    match = is_op("add")(wildcard().named("lhs"), wildcard()).match(
        value(parse(LEFT), "r")
    )
    with pytest.raises(
        KeyError, match="'conv' labels no matched sub-pattern; labels: lhs"
    ):
        match["conv"]
    twice = is_op("add")(wildcard().named("x"), wildcard().named("x"))
    with pytest.raises(KeyError, match="labels two sub-patterns"):
        twice.match(value(parse(LEFT), "r"))["x"]
