"""Arithmetic written out as ops, matched by value rather than by shape: a
product in any grouping with its constant scale, a polynomial in a matched
value, a scalar constant up to float32 rounding.

Exporters spell one formula many ways (x * 0.5 * y, (x * y) / 2, 0.5 * (y * x);
x / sqrt 2 or x * 0.7071...). `is_product(x, y, scale=0.5)` matches them all;
`is_polynomial(x, [0, 1 / sqrt 2])` matches every way of writing x / sqrt 2
through adds, subs, muls, negations, divisions by constants and powers up to 3.
Inner ops must have one use (they belong to the match); constants compare up
to F32_ULPS float32 units in the last place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.polynomial import polynomial as poly
from xdsl.ir import Operation, OpResult, SSAValue

from graph_opt.dialects.nn.constant import constant_op
from graph_opt.identity_memo import IdentityMemo
from graph_opt.patterns.pattern import DFPattern
from graph_opt.patterns.structure import TuplePattern

if TYPE_CHECKING:
    from graph_opt.patterns.matcher import Matcher

F32_ULPS = 4
"""How far (in float32 units in the last place) a constant may be from the expected one."""

MAX_DEGREE = 3
"""The highest power of the variable a matched polynomial may have (Gelu's x^3)."""

PRODUCT_OPS = frozenset({"nn.mul", "nn.div"})
POLYNOMIAL_OPS = frozenset({"nn.add", "nn.sub", "nn.mul", "nn.div", "nn.neg", "nn.pow"})


_scalars: IdentityMemo[tuple[float | None]] = IdentityMemo(limit=1 << 12)
"""`scalar` per constant attribute (patterns ask it of the same constants again and again)."""


def scalar(value: SSAValue) -> float | None:
    """The value of a one-element constant, else None."""
    op = constant_op(value)
    if op is None:
        return None
    found = _scalars.get(op.value)
    if found is None:
        array = op.to_array()
        found = (None if array.size != 1 else float(array.reshape(())),)
        _scalars.put(op.value, found)
    return found[0]


def exactly(value: float | None, expected: float, ulps: int = F32_ULPS) -> bool:
    """Whether `value` is `expected` up to `ulps` float32 units in the last place."""
    if value is None:
        return False
    ulp = float(np.spacing(np.float32(abs(expected))))
    return abs(value - expected) <= ulps * ulp


def _interior(value: SSAValue, names: frozenset[str]) -> Operation | None:
    """The op defining `value` when it is one of `names` and nothing else uses `value`."""
    if isinstance(value, OpResult) and value.op.name in names and value.has_one_use():
        return value.op
    return None


class ScalarPattern(DFPattern):
    """A one-element constant; with `expected`, equal to it up to `ulps`."""

    root_names = None

    def __init__(self, expected: float | None, ulps: int):
        self.expected, self.ulps = expected, ulps

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        found = scalar(value)
        if found is None:
            return m.fail(self, value, "is not a one-element constant")
        if self.expected is not None and not exactly(found, self.expected, self.ulps):
            return m.fail(self, value, "is {}, expected {}", found, self.expected)
        m.bind_constant(value.owner)  # type: ignore[arg-type]
        return True

    def __str__(self) -> str:
        return "is_scalar()" if self.expected is None else f"is_scalar({self.expected})"


class ProductPattern(DFPattern):
    """A product tree of nn.mul ops and divisions by scalar constants.

    Its non-constant factors match `factors` in any order; its scalar
    constants multiply to `scale` (up to float32 rounding; any with None).
    `match.facts[p]` is the scale found.
    """

    root_names = PRODUCT_OPS

    def __init__(
        self, factors: Sequence[DFPattern], scale: float | None, root: str | None
    ):
        self.factors = TuplePattern(tuple(factors), unordered=True)
        self.scale = scale
        if root is not None:
            self.root_names = frozenset({root if "." in root else f"nn.{root}"})

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not isinstance(value, OpResult) or value.op.name not in self.root_names:
            return m.fail(self, value, "is not defined by {}", sorted(self.root_names))
        found = _product(value.op, len(self.factors.fields or ()))
        if found is None:
            return m.fail(
                self,
                value,
                "is no product of {} factors",
                len(self.factors.fields or ()),
            )
        factors, scale, ops, constants = found
        if self.scale is not None and not exactly(scale, self.scale):
            return m.fail(self, value, "scales by {}, expected {}", scale, self.scale)
        if not self.factors.match_values(m, value.op, tuple(factors)):
            return m.fail_because(self, value, "the factors do not match")
        for op in ops:
            m.cover(op)
        for op in constants:
            m.bind_constant(op)
        m.record(self, scale)
        return True

    def __str__(self) -> str:
        scale = "" if self.scale is None else f", scale={self.scale}"
        return f"is_product({', '.join(map(str, self.factors.fields or ()))}{scale})"


def _product(root: Operation, limit: int):
    """(factors, scale, ops, constant ops) of the product tree at `root`; None
    when it divides by a non-constant or has more than `limit` factors."""
    factors: list[SSAValue] = []
    ops: list[Operation] = []
    constants: list[Operation] = []
    scale = 1.0
    stack = [root]
    while stack:
        op = stack.pop()
        ops.append(op)
        operands = list(op.operands)
        if op.name == "nn.div":
            divisor = scalar(operands[1])
            if not divisor:
                return None
            scale /= divisor
            constants.append(operands[1].owner)
            operands = operands[:1]
        for value in operands:
            if (c := scalar(value)) is not None:
                scale *= c
                constants.append(value.owner)
            elif (inner := _interior(value, PRODUCT_OPS)) is not None:
                stack.append(inner)
            else:
                factors.append(value)
                if len(factors) > limit:
                    return None
    return factors, scale, ops, constants


class PolynomialPattern(DFPattern):
    """A polynomial in the value `variable` matched, of at most `degree`, with
    `coefficients` (constant term first) up to float32 rounding, or any
    (None). `match.facts[p]` is (coefficients, the number of ops it spans).

    `variable` is normally bound earlier in the match (e.g. a factor of the
    same is_product); an affine pattern (degree 1) whose variable is still
    unbound binds it to the one non-constant value at the bottom of its ops.
    """

    root_names = None

    def __init__(
        self,
        variable: DFPattern,
        coefficients: Sequence[float] | None,
        degree: int = MAX_DEGREE,
    ):
        self.variable, self.degree = variable, degree
        self.coefficients = None if coefficients is None else tuple(coefficients)

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        x = m.values.get(self.variable)
        if x is None:
            if self.degree != 1:
                return m.fail(
                    self, value, "its variable {} is not bound yet", self.variable
                )
            x = affine_variable(value)
            if not m.match_value(self.variable, x):
                return m.fail_because(self, value, "its variable does not match")
        ops: list[Operation] = []
        found = polynomial(value, x, ops)
        if found is None or len(found) > self.degree + 1:
            return m.fail(self, value, "is no polynomial of degree {}", self.degree)
        if self.coefficients is not None and not _is_polynomial(
            found, self.coefficients
        ):
            return m.fail(self, value, "is not the polynomial {}", self.coefficients)
        for op in ops:
            m.cover(op)
            for operand in op.operands:
                if scalar(operand) is not None:
                    m.bind_constant(operand.owner)  # type: ignore[arg-type]
        m.record(self, (found, len(ops)))
        return True

    def __str__(self) -> str:
        coefficients = "*" if self.coefficients is None else list(self.coefficients)
        return f"is_polynomial({self.variable}, {coefficients})"


AFFINE_OPS = frozenset({"nn.add", "nn.sub", "nn.mul", "nn.div"})


def affine_variable(value: SSAValue) -> SSAValue:
    """x at the bottom of single-use adds, subs, muls and divisions of one
    non-constant operand by scalar constants (e.g. x in 0.2 * x + 0.5)."""
    while (op := _interior(value, AFFINE_OPS)) is not None:
        others = [v for v in op.operands if scalar(v) is None]
        if len(others) != 1 or (op.name == "nn.div" and others[0] != op.operands[0]):
            return value
        value = others[0]
    return value


CLAMP_OPS = frozenset({"nn.clip", "nn.relu", "nn.max", "nn.min"})


class ClampPattern(DFPattern):
    """`inner` clamped by nn.clip, nn.relu, and nn.max / nn.min with scalar
    constants, in any nesting (inner ones with one use); `match.facts[p]` is
    the (low, high) range (±inf for an open side)."""

    root_names = CLAMP_OPS

    def __init__(self, inner: DFPattern):
        self.inner = inner

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        low, high = -np.inf, np.inf
        ops: list[Operation] = []
        constants: list[Operation] = []
        while True:
            op = value.owner
            if ops and not value.has_one_use():
                break
            if not isinstance(op, Operation) or op.name not in CLAMP_OPS:
                break
            if op.name == "nn.clip":
                bounds = (_bound(op, "min", -np.inf), _bound(op, "max", np.inf))
                inner = op.operands[0]
            elif op.name == "nn.relu":
                bounds, inner = (0.0, np.inf), op.operands[0]
            else:
                lhs, rhs = op.operands
                pairs = [(v, b, scalar(b)) for v, b in ((lhs, rhs), (rhs, lhs))]
                found = [p for p in pairs if p[2] is not None and scalar(p[0]) is None]
                if not found:
                    break
                inner, constant, bound = found[0]
                constants.append(constant.owner)  # type: ignore[arg-type]
                bounds = (bound, np.inf) if op.name == "nn.max" else (-np.inf, bound)
            low, high = max(low, bounds[0]), min(high, bounds[1])
            ops.append(op)
            value = inner
        if not ops:
            return m.fail(self, value, "is not clamped")
        if low > high:
            return m.fail(self, value, "disjoint clamps make a constant")
        if not m.match_value(self.inner, value):
            return m.fail_because(self, value, "the clamped value does not match")
        for op in ops:
            m.cover(op)
        for op in constants:
            m.bind_constant(op)
        m.record(self, (float(low), float(high)))
        return True

    def __str__(self) -> str:
        return f"is_clamp({self.inner})"


def _bound(op: Operation, name: str, absent: float) -> float:
    attr = op.properties.get(name)
    return absent if attr is None else attr.value.data  # type: ignore[attr-defined]


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
    op = _interior(value, POLYNOMIAL_OPS)
    if op is None:
        return None
    mark = len(chain)
    chain.append(op)
    if op.name == "nn.neg":
        inner = polynomial(op.operands[0], x, chain)
        result = None if inner is None else -inner
    elif op.name in ("nn.pow", "nn.div"):
        base, by = polynomial(op.operands[0], x, chain), scalar(op.operands[1])
        if base is None or by is None:
            result = None
        elif op.name == "nn.div":
            result = None if by == 0 else base / by
        else:
            result = poly.polypow(base, int(by)) if by in (1, 2, 3) else None
    else:
        lhs = polynomial(op.operands[0], x, chain)
        rhs = polynomial(op.operands[1], x, chain)
        combine = {
            "nn.add": poly.polyadd,
            "nn.sub": poly.polysub,
            "nn.mul": poly.polymul,
        }
        result = None if lhs is None or rhs is None else combine[op.name](lhs, rhs)
    if result is None or len(result) > MAX_DEGREE + 1:
        del chain[mark:]
        return None
    return result


def _is_polynomial(coefficients: np.ndarray | None, expected: Sequence[float]) -> bool:
    if coefficients is None or len(coefficients) > len(expected):
        return False
    padded = list(coefficients) + [0.0] * (len(expected) - len(coefficients))
    return all(exactly(c, e) for c, e in zip(padded, expected))


def is_scalar(expected: float | None = None, ulps: int = F32_ULPS) -> ScalarPattern:
    """A one-element constant (equal to `expected` up to `ulps` float32 ulps when given)."""
    return ScalarPattern(expected, ulps)


def is_product(
    *factors: DFPattern, scale: float | None = None, root: str | None = None
) -> ProductPattern:
    """A product of `factors` (any grouping and order) and scalar constants
    multiplying to `scale`; divisions by constants count as their inverse.
    `root` ("mul" or "div") restricts the op at the top."""
    return ProductPattern(factors, scale, root)


def is_polynomial(
    variable: DFPattern, coefficients: Sequence[float] | None = None
) -> PolynomialPattern:
    """A polynomial in `variable`'s value (bound earlier: e.g. a factor of the
    same is_product), coefficients constant term first (any when None)."""
    return PolynomialPattern(variable, coefficients)


def is_affine(variable: DFPattern) -> PolynomialPattern:
    """a * x + b in `variable`'s value x (found at the bottom of the ops when
    not bound yet); `match.facts[p]` is ([b, a], number of ops)."""
    return PolynomialPattern(variable, None, degree=1)


def is_clamp(inner: DFPattern) -> ClampPattern:
    """`inner` clamped (clip, relu, max / min with constants, any nesting);
    `match.facts[p]` is (low, high)."""
    return ClampPattern(inner)


class ScaledPattern(DFPattern):
    """`inner` times scalar constants: single-use nn.mul and nn.div by nonzero
    scalar constants on top of it, each keeping its type (none at all is
    scale 1); `match.facts[p]` is the scale."""

    root_names = None

    def __init__(self, inner: DFPattern):
        self.inner = inner

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        factor, ops, constants = 1.0, [], []
        while True:
            op = value.owner
            if not isinstance(op, Operation) or op.name not in PRODUCT_OPS:
                break
            if not value.has_one_use():
                break
            lhs, rhs = op.operands
            if op.name == "nn.mul" and (c := scalar(lhs)) is not None:
                base, constant, by = rhs, lhs, c
            elif (c := scalar(rhs)) is not None:
                base, constant, by = lhs, rhs, c
            else:
                break
            if base.type != value.type or by == 0:
                break
            factor *= by if op.name == "nn.mul" else 1.0 / by
            ops.append(op)
            constants.append(constant.owner)
            value = base
        if not m.match_value(self.inner, value):
            return m.fail_because(self, value, "the scaled value does not match")
        for op in ops:
            m.cover(op)
        for op in constants:
            m.bind_constant(op)  # type: ignore[arg-type]
        m.record(self, factor)
        return True

    def __str__(self) -> str:
        return f"is_scaled({self.inner})"


def is_scaled(inner: DFPattern) -> ScaledPattern:
    """`inner`, maybe multiplied or divided by scalar constants (each step
    keeping the type); `match.facts[p]` is the scale (1 with no step)."""
    return ScaledPattern(inner)
