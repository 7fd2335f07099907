"""Associative matching: a chain of adds or muls in any grouping, or of divisions.

`is_op("add", associative=True)(a, b, c)` matches `(x + y) + z`, `x + (y + z)`
and their commutations: the chain's leaves, in any order, match a, b and c.
`is_op("div", associative=True)(x, a, b)` matches `x / a / b` and `x / (a * b)`
(the numerator first, the divisors in any order), as TF's graph_matcher users
and TVM's rewrites spell one pattern per grouping otherwise. A chain goes on
through inner ops with one use only; they belong to the match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.ir import Operation, OpResult, SSAValue

from graph_opt.patterns.pattern import DFPattern, OpPattern
from graph_opt.patterns.structure import TuplePattern

if TYPE_CHECKING:
    from graph_opt.patterns.matcher import Matcher

DIVISION = "nn.div"


class AssociativePattern(OpPattern):
    """Leaves of a chain of one associative op (or of divisions) matching `args`."""

    def __init__(self, names: Sequence[str], args: Sequence[DFPattern | None] | None):
        super().__init__(names, args)
        if self.args is not None and (self.variadic or len(self.args) < 2):
            raise ValueError("an associative pattern takes two or more input patterns")
        if DIVISION in self.names and len(self.names) > 1:
            raise ValueError("a division chain cannot be mixed with other ops")
        args_ = self.args or ()
        self.leaves = TuplePattern(args_[1:] if DIVISION in self.names else args_, True)

    def __call__(self, *args: DFPattern | None) -> AssociativePattern:
        copy = AssociativePattern(sorted(self.names), args)
        copy.label = self.label
        return copy

    def may_match(self, value: SSAValue, depth: int) -> bool:
        # the chain's leaves, not the op's operands, match `args`
        return isinstance(value, OpResult) and value.op.name in self.names

    def match_op(self, m: Matcher, op: Operation) -> bool:
        if op.name not in self.names:
            return m.fail(
                self, op, "op is {}, expected {}", op.name, "|".join(self.names)
            )
        if self.args is None:
            return m.bind_op(self, op)
        inner: list[Operation] = []
        limit = len(self.leaves.fields or ())
        if op.name == DIVISION:
            numerator, leaves = _division(op, inner, limit)
        else:
            numerator, leaves = None, _chain(op, op.name, inner, limit)
        if leaves is None:
            return m.fail(self, op, "the chain has more than {} leaves", limit)
        if numerator is not None and not m.match_value(self.args[0], numerator):
            return m.fail_because(self, op, "the numerator does not match")
        if not self.leaves.match_values(m, op, tuple(leaves)):
            return m.fail_because(self, op, "the chain's leaves do not match")
        for covered in inner:
            m.cover(covered)
        return m.bind_op(self, op)

    def __str__(self) -> str:
        return super().__str__().replace("is_op(", "is_op(associative ", 1)


def _inner(value: SSAValue, name: str) -> Operation | None:
    """The op defining `value` when it continues a chain of `name` ops."""
    if isinstance(value, OpResult) and value.op.name == name and value.has_one_use():
        return value.op
    return None


def _chain(
    op: Operation, name: str, inner: list[Operation], limit: int
) -> list[SSAValue] | None:
    """The leaves of the chain of `name` ops rooted at `op`, left to right; None
    past `limit` leaves (the walk stops there: a long chain costs no more)."""
    leaves: list[SSAValue] = []
    stack = list(reversed(op.operands))
    while stack:
        if len(leaves) + len(stack) > limit:
            return None  # every value still to visit is one leaf at least
        value = stack.pop()
        nested = _inner(value, name)
        if nested is None:
            leaves.append(value)
        else:
            inner.append(nested)
            stack.extend(reversed(nested.operands))
    return leaves


def _division(
    op: Operation, inner: list[Operation], limit: int
) -> tuple[SSAValue, list[SSAValue] | None]:
    """The numerator and the divisors of a chain of divisions (divisors may be
    products); no divisors past `limit` of them."""
    divisors: list[SSAValue] = []
    while True:
        numerator, divisor = op.operands
        product = _inner(divisor, "nn.mul")
        if product is None:
            divisors.append(divisor)
        else:
            inner.append(product)
            factors = _chain(product, "nn.mul", inner, limit - len(divisors))
            if factors is None:
                return numerator, None
            divisors.extend(factors)
        if len(divisors) > limit:
            return numerator, None
        nested = _inner(numerator, DIVISION)
        if nested is None:
            return numerator, divisors
        inner.append(nested)
        op = nested
