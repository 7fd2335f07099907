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

import numpy as np
from numpy.polynomial import polynomial as poly
from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from graph_opt.dialects.nn.base import f32_attr, str_attr
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.elementwise import (
    AddOp,
    ClipOp,
    DivOp,
    ErfOp,
    ExpOp,
    GeluOp,
    HardSigmoidOp,
    HardSwishOp,
    Log1pOp,
    LogOp,
    MaxOp,
    MinOp,
    MishOp,
    MulOp,
    NegOp,
    PowOp,
    ReluOp,
    SigmoidOp,
    SiluOp,
    SoftplusOp,
    SubOp,
    TanhOp,
)
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.rewriting.erasure import erase_op, has_unused_results, replace_op

F32_ULPS = 4
"""How far (in float32 units in the last place) a constant may be from the canonical one."""

MAX_DEGREE = 3
"""The highest power of x a matched polynomial may have (Gelu's x^3)."""

SQRT_2_OVER_PI = float(np.sqrt(2 / np.pi))
GELU_CUBIC = 0.044715


def scalar(value: SSAValue) -> float | None:
    """The value of a one-element constant, else None."""
    array = constant_value(value)
    return None if array is None or array.size != 1 else float(array.reshape(()))


def exactly(value: float | None, expected: float) -> bool:
    """Whether `value` is `expected` up to float32 rounding."""
    if value is None:
        return False
    ulp = float(np.spacing(np.float32(abs(expected))))
    return abs(value - expected) <= F32_ULPS * ulp


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


def polynomial(
    value: SSAValue, x: SSAValue, chain: list[Operation]
) -> np.ndarray | None:
    """The coefficients (constant term first) of `value` as a polynomial in x,
    through single-use adds, subs, muls, negations, divisions by constants and
    powers 1 to 3, whose ops are appended to `chain`; None if it is none."""
    if value == x:
        return np.array([0.0, 1.0])
    if (c := scalar(value)) is not None:
        return np.array([c])
    op = interior(value, AddOp | SubOp | MulOp | DivOp | NegOp | PowOp)
    if op is None:
        return None
    mark = len(chain)
    chain.append(op)
    if isinstance(op, NegOp):
        inner = polynomial(op.input, x, chain)
        result = None if inner is None else -inner
    elif isinstance(op, PowOp | DivOp):
        base, by = polynomial(op.lhs, x, chain), scalar(op.rhs)
        if base is None or by is None:
            result = None
        elif isinstance(op, DivOp):
            result = None if by == 0 else base / by
        else:
            result = poly.polypow(base, int(by)) if by in (1, 2, 3) else None
    else:
        lhs, rhs = polynomial(op.lhs, x, chain), polynomial(op.rhs, x, chain)
        combine = {AddOp: poly.polyadd, SubOp: poly.polysub, MulOp: poly.polymul}
        result = None if lhs is None or rhs is None else combine[type(op)](lhs, rhs)
    if result is None or len(result) > MAX_DEGREE + 1:
        del chain[mark:]
        return None
    return result


def is_polynomial(coefficients: np.ndarray | None, expected: list[float]) -> bool:
    """Whether the coefficients are `expected`'s (constant term first), each up to float32 rounding."""
    if coefficients is None or len(coefficients) > len(expected):
        return False
    padded = list(coefficients) + [0.0] * (len(expected) - len(coefficients))
    return all(exactly(c, e) for c, e in zip(padded, expected))


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


def recognize_silu(root: Operation) -> Recognized | None:
    """x * sigmoid(x)."""
    for x, gate, product in two_factors(root):
        sigmoid = interior(gate, SigmoidOp)
        if sigmoid and sigmoid.input == x and exactly(product.scale, 1.0):
            return Recognized(SiluOp, x, {}, [*product.ops, sigmoid])
    return None


def softplus_ops(value: SSAValue, x: SSAValue) -> list[Operation] | None:
    """The ops of softplus(x) defining `value`: nn.softplus, log(1 + exp(x)) or log1p(exp(x))."""
    if (softplus := interior(value, SoftplusOp)) is not None:
        return [softplus] if softplus.input == x else None
    if (log1p := interior(value, Log1pOp)) is not None:
        exp = interior(log1p.input, ExpOp)
        return [log1p, exp] if exp and exp.input == x else None
    log = interior(value, LogOp)
    add = None if log is None else interior(log.input, AddOp)
    if add is None:
        return None
    for one, term in ((add.lhs, add.rhs), (add.rhs, add.lhs)):
        exp = interior(term, ExpOp)
        if exactly(scalar(one), 1.0) and exp and exp.input == x:
            return [log, add, exp]
    return None


def recognize_mish(root: Operation) -> Recognized | None:
    """x * tanh(softplus(x))."""
    for x, gate, product in two_factors(root):
        tanh = interior(gate, TanhOp)
        softplus = None if tanh is None else softplus_ops(tanh.input, x)
        if softplus and exactly(product.scale, 1.0):
            return Recognized(MishOp, x, {}, [*product.ops, tanh, *softplus])
    return None


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


def gelu_gate(value: SSAValue, x: SSAValue) -> tuple[str, list[Operation]] | None:
    """(approximate, ops) when `value` is 1 + erf(x / sqrt 2) ("none") or
    1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)) ("tanh")."""
    add = interior(value, AddOp)
    if add is None:
        return None
    for one, term in ((add.lhs, add.rhs), (add.rhs, add.lhs)):
        core = interior(term, ErfOp | TanhOp)
        if not exactly(scalar(one), 1.0) or core is None:
            continue
        ops = [add, core]
        inner = polynomial(core.input, x, ops)
        if isinstance(core, ErfOp) and is_polynomial(inner, [0, 1 / np.sqrt(2)]):
            return "none", ops
        cubic = SQRT_2_OVER_PI * GELU_CUBIC
        if isinstance(core, TanhOp) and is_polynomial(
            inner, [0, SQRT_2_OVER_PI, 0, cubic]
        ):
            return "tanh", ops
    return None


def recognize_gelu(root: Operation) -> Recognized | None:
    """0.5 * x * (1 + erf(x / sqrt 2)), or its tanh approximation, in any grouping."""
    for x, gate, product in two_factors(root):
        found = gelu_gate(gate, x)
        if found is not None and exactly(product.scale, 0.5):
            approximate, ops = found
            props = {"approximate": str_attr("tanh")} if approximate == "tanh" else {}
            return Recognized(GeluOp, x, props, [*product.ops, *ops])
    return None


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


class FuseSilu(FuseDecomposedActivation):
    """x * sigmoid(x)  =>  nn.silu."""

    recognize = staticmethod(recognize_silu)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter):
        self.fuse(op, rewriter)


class FuseMish(FuseDecomposedActivation):
    """x * tanh(softplus(x)), softplus also as log(1 + exp(x))  =>  nn.mish."""

    recognize = staticmethod(recognize_mish)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter):
        self.fuse(op, rewriter)


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


class FuseGelu(FuseDecomposedActivation):
    """x * 0.5 * (1 + erf(x / sqrt(2))), or with tanh(sqrt(2/pi) (x + 0.044715 x^3)),
    in any grouping and operand order  =>  nn.gelu."""

    recognize = staticmethod(recognize_gelu)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter):
        self.fuse(op, rewriter)


ACTIVATION_PATTERNS: tuple[type[FuseDecomposedActivation], ...] = (
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
        for pattern in ACTIVATION_PATTERNS:
            found = accepted(pattern.recognize(user), user)
            if found is not None and op in found.chain:
                return True
        value = user.results[0]
    return False
