"""Patterns that recognize activations exporters write out, as the one op each is.

Each is a `DFPatternRewrite` declared with the pattern language's arithmetic
(`graph_opt.patterns.arithmetic`: is_product, is_polynomial, is_affine,
is_clamp, is_scalar).

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

from functools import cache
from typing import Any

import numpy as np
from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from graph_opt.dialects.nn.base import str_attr
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.patterns.arithmetic import (
    exactly,
    is_affine,
    is_clamp,
    is_polynomial,
    is_product,
    is_scalar,
)
from graph_opt.patterns.builder import nn
from graph_opt.patterns.matcher import Match, match_op
from graph_opt.patterns.pattern import DFPattern, is_op, wildcard
from graph_opt.patterns.rewrite import DFPatternRewrite

SQRT_2_OVER_PI = float(np.sqrt(2 / np.pi))
GELU_CUBIC = 0.044715


def sole_user(value: SSAValue) -> Operation | None:
    return next(iter(value.uses)).operation if value.has_one_use() else None


def interior(value: SSAValue, op_class) -> Operation | None:
    """The op of `op_class` defining `value`, when nothing else uses `value`."""
    op = value.owner
    return op if isinstance(op, op_class) and value.has_one_use() else None


class ActivationRewrite(DFPatternRewrite):
    """An activation written out as arithmetic  =>  its op, of x's type.

    Subclasses set `op_name` and the pattern, with `self.x` the activation's
    input; the match declines when the constants broadcast x to a larger
    shape or x is not a float tensor.
    """

    op_name: str
    x: DFPattern

    def properties(self, match: Match) -> dict[str, Any] | None:
        """The new op's properties; None declines."""
        return {}

    def accepts(self, match: Match) -> bool:
        x_type = ranked(match[self.x])
        if x_type is None or x_type != match.root.type:  # type: ignore[union-attr]
            return False  # the constants broadcast x to a larger shape
        return isinstance(x_type.element_type, AnyFloat)

    def rewrite(self, match: Match, rewriter: PatternRewriter) -> SSAValue | None:
        properties = self.properties(match)
        if properties is None or not self.accepts(match):
            return None
        new = getattr(nn, self.op_name)(match[self.x], **properties)
        new.owner.location = match.root.owner.location  # type: ignore[union-attr]
        return new


def hard_sigmoid_params(
    match: Match, clamp: DFPattern, affine: DFPattern, scale: float
) -> tuple[float, float] | None:
    """(alpha, beta) when clamp(affine) * scale is clip(alpha * x + beta, 0, 1)."""
    low, high = match.facts[clamp]
    (coefficients, _) = match.facts[affine]
    if scale <= 0 or low != 0 or not np.isfinite(high):
        return None
    if not exactly(high * scale, 1.0):
        return None
    if len(coefficients) != 2 or coefficients[1] == 0:
        return None
    beta, alpha = coefficients * scale
    return float(alpha), float(beta)


def is_hard_swish_gate(value: SSAValue) -> bool:
    op = value.owner
    return exactly(op.alpha.value.data, 1 / 6) and exactly(op.beta.value.data, 0.5)  # type: ignore[union-attr]


class FuseHardSwish(ActivationRewrite):
    """x * hard_sigmoid(x) (alpha 1/6, beta 1/2), x * relu6(x + 3) / 6 (or * (1/6))
    in any grouping  =>  nn.hard_swish.

        x -------------------.
        |                    |
        x + 3                |     (any affine a * x + b)
        relu6 | clip | min(max(., 0), 6)
          \\                  |
           mul | div  <-----'     (constants scaling it to clip(x / 6 + 1 / 2, 0, 1))
    """

    op_name = "hard_swish"

    def __init__(self):
        self.x = wildcard()
        gate = is_op("hard_sigmoid")(self.x).where(
            is_hard_swish_gate, "alpha 1/6, beta 1/2"
        )
        self.affine = is_affine(self.x)
        self.clamp = is_clamp(self.affine)
        self.gated = is_product(self.x, self.clamp)
        self.pattern = is_product(self.x, gate, scale=1.0) | self.gated

    def properties(self, match: Match) -> dict[str, Any] | None:
        if self.gated not in match:
            return {}
        scale = match.facts[self.gated]
        params = hard_sigmoid_params(match, self.clamp, self.affine, scale)
        if params is None or not (
            exactly(params[0], 1 / 6) and exactly(params[1], 0.5)
        ):
            return None
        return {}


class FuseHardSigmoid(ActivationRewrite):
    """relu6(x + 3) / 6, clip(0.2 * x + 0.5, 0, 1), ...  =>  nn.hard_sigmoid.

    x
    a * x + b                  (any affine form)
    relu6 | clip | min / max   (clamped to [0, high])
    [mul | div by constants]   (scaling high to 1)
    """

    op_name = "hard_sigmoid"

    def __init__(self):
        self.x = wildcard()
        self.affine = is_affine(self.x)
        self.clamp = is_clamp(self.affine)
        self.scaled = is_product(self.clamp)
        self.pattern = self.scaled | (self.clamp & is_op("clip", "min", "max"))

    def properties(self, match: Match) -> dict[str, Any] | None:
        scale = match.facts[self.scaled] if self.scaled in match else 1.0
        if self.scaled not in match and match.facts[self.affine][1] == 0:
            return None  # a bare clip: nothing to fuse
        params = hard_sigmoid_params(match, self.clamp, self.affine, scale)
        if params is None:
            return None
        return {"alpha": params[0], "beta": params[1]}


class FuseSilu(ActivationRewrite):
    """x * sigmoid(x)  =>  nn.silu.

    x -----------.
    |            |
    sigmoid      |
      \\          |
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

    x ------------------.
    |                   |
    softplus | log1p(exp) | log(1 + exp)
    tanh                |
      \\                 |
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
          \\                     |
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


ACTIVATION_PATTERNS: tuple[type[ActivationRewrite], ...] = (
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
            match = match_op(pattern.pattern, user)
            if (
                match is not None
                and op in match.region
                and not match.escaping_values()
                and pattern.properties(match) is not None
                and pattern.accepts(match)
            ):
                return True
        value = user.results[0]
    return False


@cache
def _activation_rewrites() -> tuple[ActivationRewrite, ...]:
    return tuple(pattern() for pattern in ACTIVATION_PATTERNS)
