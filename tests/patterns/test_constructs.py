"""TVM's and Relax's pattern constructs under their names: a match and a no-match each."""

import pytest

from graph_opt.dialects.nn.elementwise import ReluOp
from graph_opt.patterns import (
    DFPatternRewrite,
    OpKind,
    RewriteLimitError,
    apply_rewrites,
    is_broadcast,
    is_constant,
    is_elementwise,
    is_expr,
    is_injective,
    is_op,
    is_op_kind,
    is_reduction,
    is_tuple_get_item,
    is_var,
    wildcard,
)

T = "tensor<2x4xf32>"
GRAPH = f"""func.func @f(%x: {T}, %y: {T}) -> {T} {{
  %c = nn.constant dense<1.0> : {T}
  %r = nn.relu %x : ({T}) -> {T}
  %s = nn.sub %c, %r : ({T}, {T}) -> {T}
  %a = nn.add %r, %r : ({T}, {T}) -> {T}
  %t = nn.transpose %a {{perm = array<i64: 1, 0>}} : ({T}) -> tensor<4x2xf32>
  %m = nn.reduce_sum %y {{axes = array<i64: 1>, keepdims = 0 : i64}} : ({T}) -> tensor<2xf32>
  %p, %q = nn.opaque %s {{op_type = "Split"}} : ({T}) -> ({T}, {T})
  func.return %a : {T}
}}"""


@pytest.fixture
def graph(parse, value):
    module = parse(GRAPH)
    return lambda name: value(module, name)


def test_match_is_var(graph):
    assert is_op("relu")(is_var()).match(graph("r"))
    assert is_op("relu")(is_var("x")).match(graph("r"))


def test_no_match_is_var(graph):
    assert is_op("relu")(is_var("y")).match(graph("r")) is None
    assert is_var().match(graph("r")) is None, "an op result is not a variable"


def test_match_is_expr(graph):
    x = graph("r").op.operands[0]
    assert is_op("relu")(is_expr(x)).match(graph("r"))
    assert is_expr(graph("r")).match(graph("r"))


def test_no_match_is_expr(graph):
    y = graph("m").op.operands[0]
    assert is_op("relu")(is_expr(y)).match(graph("r")) is None


def test_match_is_tuple_get_item_any_index(graph):
    split = is_op("opaque")(wildcard())
    assert is_tuple_get_item(split).match(graph("p"))
    assert is_tuple_get_item(split).match(graph("q"))


def test_no_match_is_tuple_get_item_any_index(graph):
    assert is_tuple_get_item(is_op("relu")(wildcard())).match(graph("p")) is None
    assert is_tuple_get_item(is_op("opaque")(wildcard())).match(graph("r")) is None


def test_match_and_not(graph):
    relu = is_op("relu")(wildcard())
    assert (relu & is_elementwise()).match(graph("r"))
    assert (~is_constant()).match(graph("r"))
    assert is_op("sub")(~relu, relu).match(graph("s"))


def test_no_match_and_not(graph):
    relu = is_op("relu")(wildcard())
    assert (relu & is_broadcast()).match(graph("r")) is None
    assert (~relu).match(graph("r")) is None
    assert is_op("sub", ordered_inputs=False)(~relu, ~relu).match(graph("s")) is None


def test_match_op_kinds(graph):
    assert is_elementwise().match(graph("r"))
    assert is_broadcast().match(graph("a"))
    assert is_injective().match(graph("t"))
    assert is_reduction().match(graph("m"))
    assert is_op_kind(OpKind.OPAQUE).match(graph("p"))


def test_no_match_op_kinds(graph):
    assert is_elementwise().match(graph("a")) is None
    assert is_broadcast().match(graph("r")) is None
    assert is_injective().match(graph("m")) is None
    assert is_reduction().match(graph("t")) is None


def test_match_unordered_inputs(graph):
    """nn.sub is not commutative: only ordered_inputs=False matches it either way round."""
    sub = is_op("sub", ordered_inputs=False)(is_op("relu")(wildcard()), is_constant())
    assert sub.match(graph("s"))


def test_no_match_unordered_inputs(graph):
    sub = is_op("sub")(is_op("relu")(wildcard()), is_constant())
    assert sub.match(graph("s")) is None
    wrong = is_op("sub", ordered_inputs=False)(is_var(), is_constant())
    assert wrong.match(graph("s")) is None


def test_match_one_to_one_same_pattern_object(graph):
    relu = is_op("relu")(wildcard())
    assert (relu + relu).match(graph("a"))


def test_no_match_one_to_one_distinct_patterns(graph):
    """Two distinct relu patterns must bind two distinct relus (Relax's rule)."""
    pattern = is_op("relu")(wildcard()) + is_op("relu")(wildcard())
    assert pattern.match(graph("a")) is None


class ReluTwice(DFPatternRewrite):
    """relu(x) -> relu(relu(x)): never reaches a fixed point unless run once."""

    def __init__(self, once: bool):
        self.x = wildcard()
        self.pattern = is_op("relu")(self.x)
        self.rewrite_once = once

    def rewrite(self, match, rewriter):
        inner = rewriter.insert(ReluOp.create_inferred([match[self.x]]))
        return rewriter.insert(ReluOp.create_inferred([inner])).results[0]


def test_match_rewrite_once(parse):
    module = parse(GRAPH)
    assert apply_rewrites(module, [ReluTwice(once=True)]).total == 1
    assert [op.name for op in module.walk()].count("nn.relu") == 2


def test_no_rewrite_once_loops(parse):
    with pytest.raises(RewriteLimitError):
        apply_rewrites(parse(GRAPH), [ReluTwice(once=False)])
