"""Patterns that recognize activations exporters write out, as the one op each is.

PyTorch, TensorFlow and hand-written models spell SiLU as x * sigmoid(x),
HardSigmoid as relu6(x + 3) / 6, HardSwish as x * relu6(x + 3) / 6 (or x *
hard_sigmoid(x)), Mish as x * tanh(softplus(x)) and Gelu as
0.5 x (1 + erf(x / sqrt 2)) or 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))),
in any grouping and operand order, with relu6 as a clip, min/max or relu/min,
and division by a constant or multiplication by its inverse. Products are read
as a list of factors and a constant scale, the arguments of erf, tanh and clip
as polynomials in x, so every grouping is one case.

A chain matches when its constants are the canonical ones up to float32
rounding, its interior values have no user outside it, and its result has x's
type (the constants do not broadcast x to a larger shape).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from graph_opt.dialects.nn.base import f32_attr, str_attr
from graph_opt.dialects.nn.elementwise import (
    AddOp,
    ClipOp,
    DivOp,
    HardSigmoidOp,
    HardSwishOp,
    MaxOp,
    MinOp,
    MulOp,
    ReluOp,
    SubOp,
)
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.passes.erasure import erase_op, has_unused_results, replace_op
from graph_opt.patterns.arithmetic import (
    exactly,
    is_polynomial,
    is_product,
    is_scalar,
    polynomial,
    scalar,
)
from graph_opt.patterns.builder import nn
from graph_opt.patterns.matcher import Match, match_op
from graph_opt.patterns.pattern import DFPattern, is_op, wildcard
from graph_opt.patterns.rewrite import DFPatternRewrite

SQRT_2_OVER_PI = float(np.sqrt(2 / np.pi))
GELU_CUBIC = 0.044715


def used_only_within(ops: Iterable[Operation], pattern: set[Operation]) -> bool:
    """Whether every result of `ops` is used by ops of `pattern` only."""
    return all(
        use.operation in pattern for op in ops for r in op.results for use in r.uses
    )


def sole_user(value: SSAValue) -> Operation | None:
    return next(iter(value.uses)).operation if value.has_one_use() else None


def interior(value: SSAValue, op_class) -> Operation | None:
    """The op of `op_class` defining `value`, when nothing else uses `value`."""
    op = value.owner
    return op if isinstance(op, op_class) and value.has_one_use() else None


def affine_variable(value: SSAValue) -> SSAValue:
    """x at the bottom of single-use adds, subs, muls and divisions of one
    non-constant operand by scalar constants (e.g. x in 0.2 * x + 0.5)."""
    while (op := interior(value, AddOp | SubOp | MulOp | DivOp)) is not None:
        others = [v for v in op.operands if scalar(v) is None]
        if len(others) != 1 or (isinstance(op, DivOp) and others[0] != op.lhs):
            return value
        value = others[0]
    return value


@dataclass
class Product:
    """A product tree of single-use muls and divisions by constants: its
    non-constant factors and the product of its constants."""

    factors: list[SSAValue] = field(default_factory=list)
    scale: float = 1.0
    ops: list[Operation] = field(default_factory=list)


def product_of(root: MulOp | DivOp) -> Product | None:
    """The product tree rooted at `root`; None when it divides by a non-constant."""
    product = Product()
    stack: list[Operation] = [root]
    while stack:
        op = stack.pop()
        product.ops.append(op)
        operands = list(op.operands)
        if isinstance(op, DivOp):
            divisor = scalar(op.rhs)
            if not divisor:
                return None
            product.scale /= divisor
            operands = [op.lhs]
        for value in operands:
            if (c := scalar(value)) is not None:
                product.scale *= c
            elif (inner := interior(value, MulOp | DivOp)) is not None:
                stack.append(inner)
            else:
                product.factors.append(value)
    return product


def clipped(value: SSAValue) -> tuple[SSAValue, float, float, list[Operation]] | None:
    """(v, low, high, ops) when `value` is v clamped to [low, high] by a clip,
    max and min with scalar constants, or relu, in any nesting."""
    low, high, ops = -np.inf, np.inf, []
    while True:
        op = value.owner
        if ops and not value.has_one_use():
            break
        if isinstance(op, ClipOp):
            bounds = (
                -np.inf if op.min is None else op.min.value.data,
                np.inf if op.max is None else op.max.value.data,
            )
            inner = op.input
        elif isinstance(op, ReluOp):
            bounds, inner = (0.0, np.inf), op.input
        elif isinstance(op, MaxOp | MinOp):
            pairs = [(v, scalar(b)) for v, b in ((op.lhs, op.rhs), (op.rhs, op.lhs))]
            found = [(v, b) for v, b in pairs if b is not None and scalar(v) is None]
            if not found:
                break
            inner, bound = found[0]
            bounds = (bound, np.inf) if isinstance(op, MaxOp) else (-np.inf, bound)
        else:
            break
        low, high = max(low, bounds[0]), min(high, bounds[1])
        ops.append(op)
        value = inner
    if not ops or low > high:  # disjoint clamps make a constant
        return None
    return value, float(low), float(high), ops


@dataclass
class Recognized:
    """An activation found: the op class it becomes, its input, properties, and
    the ops it replaces (the root first)."""

    op_class: type[Operation]
    x: SSAValue
    props: dict[str, Attribute]
    chain: list[Operation]


def hard_sigmoid_gate(
    value: SSAValue, x: SSAValue | None, scale: float
) -> tuple[float, float, SSAValue, list[Operation]] | None:
    """(alpha, beta, x, ops) when `value` * `scale` is
    clip(alpha * x + beta, 0, 1), written clip(a * x + b, 0, high) * scale."""
    found = clipped(value)
    if found is None or scale <= 0:
        return None
    inner, low, high, ops = found
    if low != 0 or not np.isfinite(high) or not exactly(high * scale, 1.0):
        return None
    x = affine_variable(inner) if x is None else x
    coefficients = polynomial(inner, x, ops)
    if coefficients is None or len(coefficients) != 2 or coefficients[1] == 0:
        return None
    beta, alpha = coefficients * scale
    return float(alpha), float(beta), x, ops


def two_factors(root: Operation) -> Iterable[tuple[SSAValue, SSAValue, Product]]:
    """(x, gate, product) for both orders of a product of two non-constant factors."""
    if not isinstance(root, MulOp | DivOp):
        return
    product = product_of(root)
    if product is None or len(product.factors) != 2:
        return
    first, second = product.factors
    yield first, second, product
    yield second, first, product


def recognize_hard_swish(root: Operation) -> Recognized | None:
    """x * hard_sigmoid(x) (alpha 1/6, beta 1/2), x * relu6(x + 3) / 6 in any grouping."""
    for x, gate, product in two_factors(root):
        hard_sigmoid = interior(gate, HardSigmoidOp)
        if hard_sigmoid is not None and hard_sigmoid.input == x:
            if not exactly(product.scale, 1.0):
                continue
            params = hard_sigmoid.alpha.value.data, hard_sigmoid.beta.value.data
            found = (*params, x, [hard_sigmoid])
        else:
            found = hard_sigmoid_gate(gate, x, product.scale)
        if found is None:
            continue
        alpha, beta, _, ops = found
        if exactly(alpha, 1 / 6) and exactly(beta, 0.5):
            return Recognized(HardSwishOp, x, {}, [*product.ops, *ops])
    return None


def recognize_hard_sigmoid(root: Operation) -> Recognized | None:
    """clip(a * x + b, 0, high) * scale with high * scale = 1 (relu6(x + 3) / 6,
    Keras's clip(0.2 * x + 0.5, 0, 1)): hard_sigmoid(alpha = a * scale, beta = b * scale)."""
    if isinstance(root, MulOp | DivOp):
        product = product_of(root)
        if product is None or len(product.factors) != 1:
            return None
        prefix, found = (
            product.ops,
            hard_sigmoid_gate(*product.factors, None, product.scale),
        )
    else:
        prefix, found = [], hard_sigmoid_gate(root.results[0], None, 1.0)
    if found is None:
        return None
    alpha, beta, x, ops = found
    chain = [*prefix, *ops]
    if all(isinstance(op, ClipOp | MinOp | MaxOp | ReluOp) for op in chain):
        return None  # a bare clip: nothing to fuse
    props = {"alpha": f32_attr(alpha), "beta": f32_attr(beta)}
    return Recognized(HardSigmoidOp, x, props, chain)


def accepted(found: Recognized | None, root: Operation) -> Recognized | None:
    """`found` when its interior is used only inside it and its result has x's float type."""
    if found is None:
        return None
    x_type = ranked(found.x)
    if x_type is None or x_type != root.results[0].type:
        return None  # the constants broadcast x to a larger shape
    if not isinstance(x_type.element_type, AnyFloat):
        return None
    if not used_only_within(found.chain[1:], set(found.chain)):
        return None
    return found


class FuseDecomposedActivation(RewritePattern):
    """Replace the chain `recognize` finds at an op by the activation op."""

    recognize: Callable[[Operation], Recognized | None]

    def fuse(self, root: Operation, rewriter: PatternRewriter) -> None:
        found = accepted(type(self).recognize(root), root)
        if found is None:
            return
        new = found.op_class.create_inferred(  # type: ignore[attr-defined]
            [found.x], found.props, [root.results[0].type]
        )
        new.location = root.location
        replace_op(rewriter, root, new)
        pending = list(dict.fromkeys(found.chain[1:]))
        while dead := [op for op in pending if has_unused_results(op)]:
            for op in dead:
                erase_op(rewriter, op)
                pending.remove(op)


class FuseHardSwish(FuseDecomposedActivation):
    """x * hard_sigmoid(x), x * relu6(x + 3) / 6 (or * (1/6))  =>  nn.hard_swish."""

    recognize = staticmethod(recognize_hard_swish)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp | DivOp, rewriter: PatternRewriter):
        self.fuse(op, rewriter)


class FuseHardSigmoid(FuseDecomposedActivation):
    """relu6(x + 3) / 6, clip(0.2 * x + 0.5, 0, 1), ...  =>  nn.hard_sigmoid."""

    recognize = staticmethod(recognize_hard_sigmoid)

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: MulOp | DivOp | ClipOp | MinOp | MaxOp, rewriter: PatternRewriter
    ):
        self.fuse(op, rewriter)


class ActivationRewrite(DFPatternRewrite):
    """An activation written out as arithmetic  =>  its op, of x's type.

    Subclasses set `op_name` and the pattern, with `self.x` the activation's
    input; the match declines when the constants broadcast x to a larger
    shape or x is not a float tensor.
    """

    op_name: str
    x: DFPattern

    def properties(self, match: Match) -> dict[str, Any]:
        return {}

    def rewrite(self, match: Match, rewriter: PatternRewriter) -> SSAValue | None:
        x, root = match[self.x], match.root
        x_type = ranked(x)
        if x_type is None or x_type != root.type:  # type: ignore[union-attr]
            return None  # the constants broadcast x to a larger shape
        if not isinstance(x_type.element_type, AnyFloat):
            return None
        new = getattr(nn, self.op_name)(x, **self.properties(match))
        new.owner.location = root.owner.location  # type: ignore[union-attr]
        return new


class FuseSilu(ActivationRewrite):
    """x * sigmoid(x)  =>  nn.silu.

    x ----------.
    |            |
    sigmoid      |
      \\         |
       mul  <---'     (any grouping and order; constants multiplying to 1)
    """

    op_name = "silu"

    def __init__(self):
        self.x = wildcard()
        self.pattern = is_product(
            self.x, is_op("sigmoid")(self.x), scale=1.0, root="mul"
        )


def softplus(x: DFPattern) -> DFPattern:
    """softplus(x) as nn.softplus, log1p(exp(x)) or log(1 + exp(x))."""
    exp = is_op("exp")(x)
    return (
        is_op("softplus")(x)
        | is_op("log1p")(exp)
        | is_op("log")(is_scalar(1.0) + is_op("exp")(x))
    )


class FuseMish(ActivationRewrite):
    """x * tanh(softplus(x)), softplus also as log(1 + exp(x)) or log1p(exp(x))  =>  nn.mish.

    x -----------------.
    |                   |
    softplus | log1p(exp) | log(1 + exp)
    tanh                |
      \\                |
       mul  <----------'
    """

    op_name = "mish"

    def __init__(self):
        self.x = wildcard()
        gate = is_op("tanh")(softplus(self.x))
        self.pattern = is_product(self.x, gate, scale=1.0, root="mul")


SQRT_1_2 = float(1 / np.sqrt(2))


class FuseGelu(ActivationRewrite):
    """0.5 * x * (1 + erf(x / sqrt 2)), or 0.5 * x * (1 + tanh(sqrt(2 / pi) (x +
    0.044715 x^3))), in any grouping and operand order  =>  nn.gelu.

        x ---------------------.
        |                       |
        x / sqrt 2              |    (or sqrt(2/pi) (x + 0.044715 x^3): any polynomial form)
        erf | tanh              |
        1 + .                   |
          \\                    |
           mul  <--------------'    (constants multiplying to 0.5)
    """

    op_name = "gelu"

    def __init__(self):
        self.x = wildcard()
        erf = is_op("erf")(is_polynomial(self.x, [0, SQRT_1_2]))
        cubic = [0, SQRT_2_OVER_PI, 0, SQRT_2_OVER_PI * GELU_CUBIC]
        self.tanh = is_op("tanh")(is_polynomial(self.x, cubic))
        gate = is_scalar(1.0) + erf | is_scalar(1.0) + self.tanh
        self.pattern = is_product(self.x, gate, scale=0.5, root="mul")

    def properties(self, match: Match) -> dict[str, Any]:
        return {"approximate": str_attr("tanh")} if self.tanh in match else {}


ACTIVATION_PATTERNS: tuple[type[RewritePattern], ...] = (
    FuseGelu,
    FuseHardSwish,
    FuseSilu,
    FuseMish,
    FuseHardSigmoid,
)
"""The decomposed-activation patterns, most specific first (a HardSwish holds a HardSigmoid)."""


def in_decomposed_activation(op: Operation, depth: int = 4) -> bool:
    """Whether `op` is inside a decomposed activation rooted at one of its next
    `depth` sole users (so a bias fold must not take it apart first)."""
    value = op.results[0]
    for _ in range(depth):
        user = sole_user(value)
        if user is None or not user.results:
            return False
        for pattern in _activation_rewrites():
            if isinstance(pattern, DFPatternRewrite):
                match = match_op(pattern.pattern, user)
                if (
                    match is not None
                    and op in match.region
                    and not match.escaping_values()
                ):
                    return True
                continue
            found = accepted(type(pattern).recognize(user), user)
            if found is not None and op in found.chain:
                return True
        value = user.results[0]
    return False


@cache
def _activation_rewrites() -> tuple[RewritePattern, ...]:
    return tuple(pattern() for pattern in ACTIVATION_PATTERNS)
