"""Workarounds for quadratic costs in xDSL 0.74's traits.

- `IsolatedFromAbove.verify` asks `op.is_ancestor(owner)` for every operand
  nested in the op, a walk up to the op from each: quadratic in the nesting
  depth (2,000 nested scf.if in a function cost seconds per verification).
  `linear_isolation_verify` does the same check remembering the nodes already
  found inside the op, so each node is walked once; the errors are xDSL's. It
  replaces xDSL's method only when graph-opt's entry points call
  `check_isolation_in_linear_time` (trait instances live in xDSL's op
  definitions: there is no subclass to use instead).
- `RecursiveMemoryEffect` gathers an op's effects from every op nested in it,
  and cse and dce ask again for each enclosing op: quadratic in the nesting
  depth (`-p optimize` took 27 s on 1,000 nested scf.if). Inside
  `effects_memoized()` each op's effects are computed once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl import traits
from xdsl.ir import Operation, Region
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

from graph_opt.xdsl_compat.rewriter import block_ops

XDSL_ISOLATION_VERIFY = IsolatedFromAbove.verify
"""xDSL's own `IsolatedFromAbove.verify`."""


def linear_isolation_verify(self: IsolatedFromAbove, op: Operation) -> None:
    """`IsolatedFromAbove.verify` walking each nested node once (and asking each
    op class once whether it is isolated: traits belong to the class)."""
    inside: set[object] = {op}
    isolated: dict[type[Operation], bool] = {}

    def defined_inside(owner) -> bool:
        path = []
        while owner is not None and owner not in inside:
            path.append(owner)
            owner = owner.parent_node
        if owner is None:
            return False
        inside.update(path)
        return True

    regions: list[Region] = list(op.regions)
    while regions:
        for block in regions.pop().blocks:
            for child_op in block_ops(block):
                for operand in child_op._operands:
                    owner = operand.owner
                    if owner is op or (
                        owner not in inside and not defined_inside(owner)
                    ):
                        raise VerifyException(
                            "Operation using value defined out of its "
                            f"IsolatedFromAbove parent: {child_op}"
                        )
                op_class = type(child_op)
                if (is_isolated := isolated.get(op_class)) is None:
                    is_isolated = child_op.has_trait(IsolatedFromAbove)
                    isolated[op_class] = is_isolated
                if not is_isolated:
                    regions += child_op.regions


def check_isolation_in_linear_time() -> None:
    """Make `IsolatedFromAbove.verify` linear (graph-opt's entry points only)."""
    IsolatedFromAbove.verify = linear_isolation_verify  # type: ignore[method-assign]


_xdsl_get_effects = traits.get_effects
_memo: ContextVar[dict[Operation, object] | None] = ContextVar(
    "effects_memo", default=None
)


def _get_effects(op: Operation):
    """xDSL's `get_effects`, remembered per op inside `effects_memoized`."""
    memo = _memo.get()
    if memo is None:
        return _xdsl_get_effects(op)
    if op not in memo:
        memo[op] = _xdsl_get_effects(op)
    return memo[op]


@contextmanager
def effects_memoized() -> Iterator[None]:
    """Remember each op's effects for the body (which must not add ops).

    cse and dce only erase ops or replace them by equal ones, so a remembered
    set can at most still hold an effect of an erased op (a conservative
    answer); it never misses one. xDSL's own `get_effects` is back after the
    body."""
    saved = traits.get_effects
    traits.get_effects = _get_effects  # the recursion looks it up in xdsl.traits
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)
        traits.get_effects = saved
