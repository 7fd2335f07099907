"""The language extensions the fusions of fuse-ops are written with: `where_match`,
`defer_to_user`, op-class dispatch of rewrites, `builder.insert` and typed constants."""

import numpy as np
from xdsl.dialects.builtin import f16
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects.nn.elementwise import AddOp, MulOp, ReluOp, SigmoidOp
from graph_opt.patterns import DFPatternRewrite, is_constant, is_op, wildcard
from graph_opt.patterns.builder import building, constant, insert, nn
from graph_opt.patterns.matcher import Match
from graph_opt.rewriting.op_dispatch import OpTypeDispatch, rewrite_with

SCALED = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = nn.constant dense<2.0> : tensor<4xf32>
  %b = nn.constant dense<1.0> : tensor<4xf32>
  %s = nn.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %m = nn.mul %s, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a = nn.add %m, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}"""


def _op(module, name):
    return next(op for op in module.walk() if op.name == name)


def test_where_match_reads_other_sub_patterns(parse):
    x = wildcard()
    scale = is_constant().where_match(lambda m, v: m[x].type == v.type, "typed like x")
    module = parse(SCALED)
    assert (is_op("sigmoid")(x) * scale).match(_op(module, "nn.mul").results[0])


def test_no_match_where_match_fails_on_the_finished_match(parse):
    x = wildcard()
    scale = is_constant().where_match(lambda m, v: m[x] is v, "is x")
    module = parse(SCALED)
    assert (is_op("sigmoid")(x) * scale).match(_op(module, "nn.mul").results[0]) is None


class _SigmoidScaled(DFPatternRewrite):
    """sigmoid(x) [* c] [+ b] -> relu(x) (a made-up rewrite: which root takes the match)."""

    defer_to_user = True

    def __init__(self):
        self.x = wildcard()
        core = is_op("sigmoid")(self.x)
        scaled = core.optional(lambda p: p * is_constant())
        self.pattern = scaled.optional(lambda p: p + is_constant())
        self.roots: list[str] = []

    def rewrite(self, match: Match, rewriter: PatternRewriter):
        self.roots.append(match.root.owner.name)
        return nn.relu(match[self.x])


def test_defer_to_user_takes_the_optional_trailing_ops(parse):
    module = parse(SCALED)
    rewrite = _SigmoidScaled()
    rewrite_with(module, [rewrite])  # a forward walk: the sigmoid comes first
    assert rewrite.roots == ["nn.add"]
    names = [op.name for op in module.walk()]
    assert "nn.mul" not in names and "nn.sigmoid" not in names


def test_without_defer_to_user_the_inner_op_is_taken(parse):
    module = parse(SCALED)
    rewrite = _SigmoidScaled()
    rewrite.defer_to_user = False
    rewrite_with(module, [rewrite])
    assert rewrite.roots[0] == "nn.sigmoid"


def test_rewrite_dispatches_by_root_op_class():
    dispatch = OpTypeDispatch([_SigmoidScaled()])
    assert dispatch.patterns_for(AddOp) and dispatch.patterns_for(SigmoidOp)
    assert not dispatch.patterns_for(ReluOp)
    assert OpTypeDispatch([DFPatternRewrite.__new__(_AnyRoot)]).patterns_for(ReluOp)


class _AnyRoot(DFPatternRewrite):
    pattern = wildcard()


def test_insert_and_typed_constant(parse):
    module = parse(SCALED)
    mul = _op(module, "nn.mul")
    with building(mul.parent):
        made = insert(MulOp.create_inferred([mul.results[0], mul.results[0]]))
        half = constant(np.array([0.5, 1.5]), f16)
    assert made.parent is mul.parent
    assert half.type.element_type == f16
    assert half.owner.to_array().dtype == np.float16


PRODUCTS = """
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %h = nn.constant dense<0.5> : tensor<f32>
  %two = nn.constant dense<2.0> : tensor<f32>
  %r = nn.constant dense<0.70710677> : tensor<f32>
  %s = nn.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %a = nn.mul %s, %h : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %p = nn.mul %x, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = nn.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %u = nn.mul %t, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = nn.div %u, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %d = nn.div %x, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %e = nn.add %d, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %v = nn.mul %e, %r : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %p, %q, %v : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}"""


def _named(module, name):
    return next(r for op in module.walk() for r in op.results if r.name_hint == name)


def test_match_product_in_any_grouping_with_its_scale(parse):
    from graph_opt.patterns import is_product

    module = parse(PRODUCTS)
    x = wildcard()
    product = is_product(x, is_op("sigmoid")(x), scale=0.5)
    for name in ("p", "q"):  # x * (sigmoid(x) * 0.5), sigmoid(x) * x / 2
        match = product.match(_named(module, name))
        assert match is not None and match.facts[product] == 0.5


def test_no_match_product_of_another_scale_or_root(parse):
    from graph_opt.patterns import is_product

    module = parse(PRODUCTS)
    x = wildcard()
    assert (
        is_product(x, is_op("sigmoid")(x), scale=1.0).match(_named(module, "p")) is None
    )
    rooted = is_product(x, is_op("sigmoid")(x), scale=0.5, root="mul")
    assert rooted.match(_named(module, "q")) is None


POLYNOMIAL = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = nn.constant dense<0.70710677> : tensor<f32>
  %two = nn.constant dense<2.0> : tensor<f32>
  %a = nn.div %x, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b = nn.add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = nn.mul %r, %b : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %e = nn.erf %c : (tensor<4xf32>) -> tensor<4xf32>
  %g = nn.mul %x, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %g : tensor<4xf32>
}"""


def test_match_polynomial_in_a_bound_variable(parse):
    from graph_opt.patterns import is_polynomial, is_product

    module = parse(POLYNOMIAL)
    x = wildcard()
    slope = 1.5 * 0.70710678  # (x / 2 + x) * 0.7071
    pattern = is_product(x, is_op("erf")(is_polynomial(x, [0, slope])))
    match = pattern.match(_named(module, "g"))
    assert match is not None
    assert {op.name for op in match.region} >= {"nn.div", "nn.add", "nn.mul"}


def test_no_match_polynomial_of_other_coefficients_or_unbound(parse):
    from graph_opt.patterns import is_polynomial, is_product

    module = parse(POLYNOMIAL)
    x = wildcard()
    other = is_product(x, is_op("erf")(is_polynomial(x, [0, 0.70710678])))
    assert other.match(_named(module, "g")) is None
    unbound = is_op("erf")(is_polynomial(wildcard(), [0, 1.5 * 0.70710678]))
    assert unbound.match(_named(module, "e")) is None


def test_match_scalar_up_to_float32_rounding(parse):
    from graph_opt.patterns import is_scalar

    module = parse(POLYNOMIAL)
    assert is_scalar(0.70710678).match(_named(module, "r"))
    assert is_scalar(0.7072).match(_named(module, "r")) is None
    assert is_scalar().match(_named(module, "a")) is None


CLAMPED = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %three = nn.constant dense<3.0> : tensor<f32>
  %six = nn.constant dense<6.0> : tensor<f32>
  %a = nn.add %x, %three : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %r = nn.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = nn.min %r, %six : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}"""


def test_match_clamp_of_an_affine_form_finds_its_range_and_variable(parse):
    from graph_opt.patterns import is_affine, is_clamp

    module = parse(CLAMPED)
    x = wildcard()
    affine = is_affine(x)
    clamp = is_clamp(affine)
    match = clamp.match(_named(module, "c"))  # min(relu(x + 3), 6)
    assert match is not None
    assert match.facts[clamp] == (0.0, 6.0)
    coefficients, ops = match.facts[affine]
    assert list(coefficients) == [3.0, 1.0] and ops == 1
    assert match[x] is module.body.block.first_op.body.block.args[0]


def test_no_match_clamp_of_an_unclamped_value(parse):
    from graph_opt.patterns import is_affine, is_clamp

    module = parse(CLAMPED)
    assert is_clamp(is_affine(wildcard())).match(_named(module, "a")) is None


SCALED_CHAIN = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = nn.constant dense<2.0> : tensor<f32>
  %four = nn.constant dense<4.0> : tensor<f32>
  %s = nn.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %a = nn.mul %two, %s : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %b = nn.div %a, %four : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}"""


def test_match_scaled_collects_the_scale(parse):
    from graph_opt.patterns import is_scaled

    module = parse(SCALED_CHAIN)
    scaled = is_scaled(is_op("sigmoid")(wildcard()))
    match = scaled.match(_named(module, "b"))
    assert match is not None and match.facts[scaled] == 0.5
    bare = is_scaled(is_op("sigmoid")(wildcard()))
    match = bare.match(_named(module, "s"))
    assert match is not None and match.facts[bare] == 1.0


def test_no_match_scaled_of_another_value(parse):
    from graph_opt.patterns import is_scaled

    module = parse(SCALED_CHAIN)
    assert is_scaled(is_op("relu")(wildcard())).match(_named(module, "b")) is None
