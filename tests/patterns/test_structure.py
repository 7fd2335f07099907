"""Tuples, scf control flow, functions and calls, redirect_to, same_shape_as:
TVM's and Relax's match / no_match pairs on graph-opt's IR."""

import pytest

from graph_opt.patterns import (
    FunctionPattern,
    apply_rewrites,
    dominates,
    has_attr,
    is_call,
    is_constant,
    is_if,
    is_op,
    is_tuple,
    is_tuple_get_item,
    is_var,
    is_while,
    redirect_to,
    wildcard,
)

T = "tensor<2x4xf32>"
H = "tensor<1x4xf32>"
GRAPH = f"""func.func @add(%a: {T}, %b: {T}) -> {T} {{
  %s = nn.add %a, %b : ({T}, {T}) -> {T}
  func.return %s : {T}
}}
func.func @mul(%a: {T}, %b: {T}) -> {T} {{
  %s = nn.mul %a, %b : ({T}, {T}) -> {T}
  func.return %s : {T}
}}
func.func @main(%x: {T}, %y: {T}, %p: i1) -> {T} {{
  %r = nn.relu %x : ({T}) -> {T}
  %cat = nn.concat %r, %y {{axis = 0 : i64}} : ({T}, {T}) -> tensor<4x4xf32>
  %h0, %h1 = nn.split %x {{axis = 0 : i64, split = array<i64: 1, 1>}} : ({T}) -> ({H}, {H})
  %call = func.call @add(%r, %y) : ({T}, {T}) -> {T}
  %if = scf.if %p -> ({T}) {{
    %m = nn.mul %x, %y : ({T}, {T}) -> {T}
    scf.yield %m : {T}
  }} else {{
    %n = nn.relu %y : ({T}) -> {T}
    scf.yield %n : {T}
  }}
  %while = scf.while (%i = %x) : ({T}) -> {T} {{
    scf.condition(%p) %i : {T}
  }} do {{
  ^bb0(%j: {T}):
    %k = nn.mul %j, %j : ({T}, {T}) -> {T}
    scf.yield %k : {T}
  }}
  %bias = nn.constant dense<1.0> : tensor<4xf32>
  %same = nn.add %r, %y : ({T}, {T}) -> {T}
  %wide = nn.add %r, %bias : ({T}, tensor<4xf32>) -> {T}
  func.return %same : {T}
}}"""


@pytest.fixture
def module(parse):
    return parse(GRAPH)


@pytest.fixture
def graph(module, value):
    return lambda name: value(module, name)


def function(module, name):
    return next(op for op in module.ops if op.sym_name.data == name)


# is_tuple: a variadic operand list, and the results of a multi-result op


def test_match_tuple_of_operands(graph):
    relu = is_op("relu")(wildcard())
    assert is_op("concat")(is_tuple([relu, is_var("y")])).match(graph("cat"))
    assert is_op("concat")(is_tuple()).match(graph("cat")), "a tuple of any fields"


def test_no_match_tuple_of_operands(graph):
    relu = is_op("relu")(wildcard())
    assert is_op("concat")(is_tuple([is_var("y"), relu])).match(graph("cat")) is None
    assert is_op("concat")(is_tuple([relu])).match(graph("cat")) is None


def test_match_unordered_tuple(graph):
    unordered = is_tuple([is_var("y"), is_op("relu")(wildcard())], unordered=True)
    assert is_op("concat")(unordered).match(graph("cat"))


def test_no_match_unordered_tuple(graph):
    unordered = is_tuple([is_var("y"), is_constant()], unordered=True)
    assert is_op("concat")(unordered).match(graph("cat")) is None


def test_match_tuple_get_item_of_results(graph):
    split = is_tuple([wildcard().has_shape([1, 4]), wildcard().has_shape([1, 4])])
    assert is_tuple_get_item(split, 0).match(graph("h0"))
    assert split[1].match(graph("h1"))
    assert split[-1].match(graph("h1")), "negative indices count from the end"
    assert split[None].match(graph("h0")) and split[None].match(graph("h1"))


def test_no_match_tuple_get_item_of_results(graph):
    three = is_tuple([wildcard(), wildcard(), wildcard()])
    assert three[0].match(graph("h0")) is None
    assert is_tuple([wildcard(), wildcard()])[0].match(graph("h1")) is None
    with pytest.raises(IndexError):
        is_tuple([wildcard(), wildcard()])[2]


# is_if / is_while: scf.if and scf.while as TF's control flow imports


def test_match_if(graph):
    then = is_op("mul")(is_var("x"), is_var("y"))
    assert is_if(is_var("p"), then, is_op("relu")(is_var("y"))).match(graph("if"))
    assert is_if().match(graph("if"))


def test_no_match_if(graph):
    assert is_if(then=is_op("relu")(wildcard())).match(graph("if")) is None
    assert is_if(cond=is_var("x")).match(graph("if")) is None
    assert is_if().match(graph("while")) is None


def test_match_while(graph):
    body = is_op("mul")(wildcard(), wildcard())
    assert is_while(is_var("x"), is_var("p"), body).match(graph("while"))


def test_no_match_while(graph):
    assert is_while(init=is_var("y")).match(graph("while")) is None
    assert (
        is_while(body=is_op("add")(wildcard(), wildcard())).match(graph("while"))
        is None
    )
    assert is_while().match(graph("if")) is None


# FunctionPattern, calls of a named function, of a function pattern, of any function


def test_match_function_pattern(module):
    a, b = wildcard(), wildcard()
    pattern = FunctionPattern([a, b], is_op("add")(a, b))
    match = pattern.match_function(function(module, "add"))
    assert match is not None and match[a].name_hint == "a"
    assert FunctionPattern(None, is_op("add")(wildcard(), wildcard())).match_function(
        function(module, "add")
    ), "params None: any arguments"


def test_no_match_function_pattern(module):
    a, b = wildcard(), wildcard()
    pattern = FunctionPattern([a, b], is_op("add")(a, b))
    assert pattern.match_function(function(module, "mul")) is None
    assert (
        FunctionPattern([a], is_op("add")(a, b)).match_function(function(module, "add"))
        is None
    ), "the argument count differs"


def test_match_function_attributes(module):
    add = function(module, "add")
    a, b = wildcard(), wildcard()
    pattern = FunctionPattern([a, b], is_op("add")(a, b))
    assert has_attr({"sym_name": "add"}, pattern).match_function(add)
    assert has_attr({}, pattern).match_function(add)


def test_no_match_function_attributes(module):
    a, b = wildcard(), wildcard()
    pattern = FunctionPattern([a, b], is_op("add")(a, b))
    assert (
        has_attr({"ping": "pong"}, pattern).match_function(function(module, "add"))
        is None
    )


def test_match_calls(graph):
    relu = is_op("relu")(wildcard())
    assert wildcard()(relu, is_var("y")).match(graph("call")), "a wildcard callee"
    assert is_call("add")(relu, wildcard()).match(graph("call"))
    a, b = wildcard(), wildcard()
    callee = FunctionPattern([a, b], is_op("add")(a, b))
    match = callee(relu, wildcard()).match(graph("call"))
    assert match is not None and match[a].name_hint == "a"
    assert match.region.keys() == {graph("call").op, graph("r").op}, (
        "the callee's ops are not part of the match"
    )


def test_no_match_calls(graph):
    assert is_call("mul")(wildcard(), wildcard()).match(graph("call")) is None
    a, b = wildcard(), wildcard()
    callee = FunctionPattern([a, b], is_op("mul")(a, b))
    assert callee(wildcard(), wildcard()).match(graph("call")) is None
    assert wildcard()(is_var("y"), wildcard()).match(graph("call")) is None
    assert is_call()(wildcard(), wildcard()).match(graph("same")) is None


# TVM's wildcard callee: every operator application is a call


def test_match_wildcard_callee(graph):
    """TVM's test_match_call: `wildcard()(None)` takes any op with any operands."""
    for name in ("r", "same", "cat", "call"):
        assert wildcard()(None).match(graph(name)), name
    relu = is_op("relu")(wildcard())
    assert wildcard()(wildcard(), wildcard()).match(graph("same"))
    assert wildcard()(relu, is_var("y")).match(graph("same"))
    assert wildcard()(relu, is_var("y")).match(graph("call")), (
        "a call is an application"
    )
    assert wildcard()(is_var("x")).match(graph("r"))


def test_no_match_wildcard_callee(graph):
    assert wildcard()(None).match(graph("bias")) is None, "a constant is no application"
    x = graph("r").op.operands[0]
    assert wildcard()(None).match(x) is None, "an argument is no application"
    assert wildcard()(wildcard()).match(graph("same")) is None, "two operands"
    assert wildcard()(is_var("y")).match(graph("r")) is None


def test_match_attr_then_arguments(graph):
    """TVM's test_match_op_attr: has_attr, then the input patterns."""
    relu = is_op("relu")(wildcard())
    concat = is_op("concat").has_attr({"axis": 0})
    assert concat(relu, wildcard()).match(graph("cat"))
    assert wildcard().has_attr({"axis": 0})(relu, is_var("y")).match(graph("cat"))
    assert wildcard()(relu, wildcard()).has_attr({"axis": 0}).match(graph("cat"))
    assert wildcard()(None).has_attr({}).match(graph("r")), "empty attrs: any op"


def test_no_match_attr_then_arguments(graph):
    relu = is_op("relu")(wildcard())
    assert (
        is_op("concat").has_attr({"axis": 1})(relu, wildcard()).match(graph("cat"))
        is None
    )
    assert (
        wildcard().has_attr({"axis": 0})(relu, wildcard()).match(graph("same")) is None
    )
    assert (
        is_op("concat").has_attr({"axis": 0})(is_var("y"), relu).match(graph("cat"))
        is None
    )
    with pytest.raises(TypeError, match="takes no input patterns"):
        is_constant().has_attr({})(wildcard())


def test_match_function_directly_and_called(module, graph):
    """TVM's test_match_func / test_match_func_attr: a function pattern matches
    the func.func itself (found by match_all) and a call of it."""
    a, b = wildcard(), wildcard()
    adds = FunctionPattern([a, b], is_op("add")(a, b))
    found = adds.match_all(module)
    assert [m.root for m in found] == [None, graph("call")]
    assert adds.match(graph("call")), "the result of a call of a matching function"
    assert len(FunctionPattern(None, wildcard()).match_all(module)) == 4
    named = wildcard().has_attr({"sym_name": "add"})
    assert named.match_function(function(module, "add"))
    assert is_call(named)(wildcard(), wildcard()).match(graph("call"))
    assert adds.has_attr({"sym_name": "add"})(wildcard(), is_var("y")).match(
        graph("call")
    ), "has_attr of a function pattern, then arguments: the callee's attributes"


def test_no_match_function_directly_and_called(module, graph):
    a, b = wildcard(), wildcard()
    muls = FunctionPattern([a, b], is_op("mul")(a, b))
    assert [m.root for m in muls.match_all(module)] == [None]
    assert muls.match(graph("call")) is None
    assert FunctionPattern(None, wildcard()).match(graph("same")) is None
    named = wildcard().has_attr({"sym_name": "mul"})
    assert named.match_function(function(module, "add")) is None
    assert is_call(named)(wildcard(), wildcard()).match(graph("call")) is None
    assert muls.has_attr({})(wildcard(), wildcard()).match(graph("call")) is None


# has_attr of the callee: TVM's Composite functions and TOpPattern

COMPOSITE = f"""func.func private @add_0(%a: {T}, %b: {T}) -> {T} attributes {{composite = "add"}} {{
  %s = nn.add %a, %b : ({T}, {T}) -> {T}
  func.return %s : {T}
}}
func.func @main(%x: {T}, %y: {T}) -> {T} {{
  %c = func.call @add_0(%x, %y) : ({T}, {T}) -> {T}
  %abs = nn.abs %c : ({T}) -> {T}
  func.return %abs : {T}
}}"""
DIAMOND = """func.func @main(%x: tensor<1x3x12x12xf32>, %w: tensor<3x3x3x3xf32>)
    -> (tensor<1x3x10x10xf32>, tensor<1x3x10x10xf32>) {
  %conv = nn.conv %x, %w : (tensor<1x3x12x12xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x10x10xf32>
  %r1 = nn.relu %conv : (tensor<1x3x10x10xf32>) -> tensor<1x3x10x10xf32>
  %r2 = nn.relu %r1 : (tensor<1x3x10x10xf32>) -> tensor<1x3x10x10xf32>
  %leaky = nn.leaky_relu %conv {alpha = 0.0 : f32} : (tensor<1x3x10x10xf32>) -> tensor<1x3x10x10xf32>
  %out = nn.add %r2, %leaky : (tensor<1x3x10x10xf32>, tensor<1x3x10x10xf32>) -> tensor<1x3x10x10xf32>
  %twice = nn.add %r1, %r1 : (tensor<1x3x10x10xf32>, tensor<1x3x10x10xf32>) -> tensor<1x3x10x10xf32>
  %fake = nn.add %twice, %leaky : (tensor<1x3x10x10xf32>, tensor<1x3x10x10xf32>) -> tensor<1x3x10x10xf32>
  func.return %out, %fake : tensor<1x3x10x10xf32>, tensor<1x3x10x10xf32>
}"""
K_ELEMWISE = 0


def test_match_callee_attr(parse, value):
    """TVM's test_rewrite_func_with_attr: a call of a function with an attribute."""
    module = parse(COMPOSITE)
    composite = wildcard().has_attr({"composite": "add"})(wildcard(), wildcard())
    assert composite.match(value(module, "c"))
    assert is_op("abs")(composite).match(value(module, "abs"))


def test_no_match_callee_attr(parse, value):
    module = parse(COMPOSITE)
    other = wildcard().has_attr({"composite": "conv_bias"})(wildcard(), wildcard())
    assert other.match(value(module, "c")) is None
    call_attr = wildcard()(wildcard(), wildcard()).has_attr({"composite": "add"})
    assert call_attr.match(value(module, "c")) is None, "the call has no attribute"
    composite = wildcard().has_attr({"composite": "add"})(wildcard(), wildcard())
    assert composite.match(value(module, "abs")) is None, (
        "nn.abs: one operand, no composite"
    )


def test_match_dominator_by_op_kind(parse, value):
    """TVM's test_match_dominator, its path written with TOpPattern."""
    module = parse(DIAMOND)
    elementwise = wildcard().has_attr({"TOpPattern": K_ELEMWISE})(wildcard())
    diamond = dominates(
        is_op("conv")(wildcard(), wildcard()), elementwise, is_op("add")
    )
    assert diamond.match(value(module, "out"))


def test_no_match_dominator_by_op_kind(parse, value):
    module = parse(DIAMOND)
    elementwise = wildcard().has_attr({"TOpPattern": K_ELEMWISE})(wildcard())
    diamond = dominates(
        is_op("conv")(wildcard(), wildcard()), elementwise, is_op("add")
    )
    assert diamond.match(value(module, "fake")) is None, (
        "add is broadcast, not elemwise"
    )
    assert elementwise.match(value(module, "out")) is None


# redirect_to and same_shape_as


DOUBLE_RELU = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = nn.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}"""
SINGLE_RELU = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}"""


def test_match_redirect_to(parse):
    inner = is_op("relu")(wildcard())
    module = parse(DOUBLE_RELU)
    assert apply_rewrites(module, [redirect_to(is_op("relu")(inner), inner)]).total == 1
    assert module.is_structurally_equivalent(parse(SINGLE_RELU)), str(module)


def test_no_match_redirect_to(parse):
    inner = is_op("tanh")(wildcard())
    module = parse(DOUBLE_RELU)
    assert apply_rewrites(module, [redirect_to(is_op("relu")(inner), inner)]).total == 0
    assert module.is_structurally_equivalent(parse(DOUBLE_RELU))


CALLED_RELU = """func.func private @g(%p: tensor<4xf32>) -> tensor<4xf32> {
  %q = nn.relu %p : (tensor<4xf32>) -> tensor<4xf32>
  func.return %q : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}"""
CALL_DROPPED = """func.func private @g(%p: tensor<4xf32>) -> tensor<4xf32> {
  %q = nn.relu %p : (tensor<4xf32>) -> tensor<4xf32>
  func.return %q : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}"""


def _redirect_cases():
    """(graph, build(inner) -> pattern, expected graph): one per pattern kind."""
    relu = is_op("relu")
    return {
        "op": (DOUBLE_RELU, lambda i: relu(i), SINGLE_RELU),
        "wildcard callee": (DOUBLE_RELU, lambda i: wildcard()(i), SINGLE_RELU),
        "attr then arguments": (
            DOUBLE_RELU,
            lambda i: relu.has_attr({})(i),
            SINGLE_RELU,
        ),
        "alternative": (DOUBLE_RELU, lambda i: is_op("tanh")(i) | relu(i), SINGLE_RELU),
        "predicate": (DOUBLE_RELU, lambda i: relu(i).has_shape([4]), SINGLE_RELU),
        "uses": (DOUBLE_RELU, lambda i: relu(i.has_uses(1)), SINGLE_RELU),
        "label": (DOUBLE_RELU, lambda i: relu(i.named("inner")), SINGLE_RELU),
        "called function": (
            CALLED_RELU,
            lambda i: FunctionPattern([wildcard()], relu(wildcard()))(i),
            CALL_DROPPED,
        ),
    }


@pytest.mark.parametrize("kind", list(_redirect_cases()))
def test_match_redirect_to_every_pattern_kind(parse, kind):
    text, build, expected = _redirect_cases()[kind]
    inner = is_op("relu")(wildcard()) if text == DOUBLE_RELU else wildcard()
    target = "inner" if kind == "label" else inner
    module = parse(text)
    assert apply_rewrites(module, [redirect_to(build(inner), target)]).total == 1
    assert module.is_structurally_equivalent(parse(expected)), str(module)


def test_no_match_redirect_to_every_pattern_kind(parse):
    """Matches whose target is unbound, is the root, or lives in a callee are left alone."""
    inner, other = is_op("relu")(wildcard()), wildcard()
    declined = [
        (DOUBLE_RELU, redirect_to(is_op("tanh")(other) | is_op("relu")(inner), other)),
        (SINGLE_RELU, redirect_to(inner.optional(is_op("relu")), inner)),
        (
            CALLED_RELU,
            redirect_to(FunctionPattern([other], is_op("relu")(other)), other),
        ),
    ]
    for text, rewrite in declined:
        module = parse(text)
        assert apply_rewrites(module, [rewrite]).total == 0, text
        module.verify()
        assert module.is_structurally_equivalent(parse(text)), str(module)


def test_match_same_shape_as(graph):
    lhs, rhs = wildcard(), wildcard()
    assert is_op("add")(lhs.same_shape_as(rhs), rhs).match(graph("same"))
    assert is_op("add")(lhs, rhs.same_shape_as(lhs)).match(graph("same"))


def test_no_match_same_shape_as(graph):
    lhs, rhs = wildcard(), wildcard()
    assert is_op("add")(lhs.same_shape_as(rhs), rhs).match(graph("wide")) is None
    assert lhs.same_shape_as(rhs).match(graph("same")) is None, (
        "rhs is not part of the match"
    )
