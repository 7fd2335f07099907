"""Memory effects of region ops computed once per cse or dce run.

xDSL 0.74's `RecursiveMemoryEffect` gathers an op's effects from every op
nested in it, and cse and dce ask again for each enclosing op: quadratic in the
nesting depth (`-p optimize` took 27 s on 1,000 nested scf.if). Within one run
of either, each op's effects are remembered. Both only erase ops or replace
them by equal ones, so a remembered set can at most still hold an effect of an
erased op (a conservative answer); it never misses one.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl import traits
from xdsl.ir import Operation

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
    """Remember each op's effects for the body (which must not add ops)."""
    traits.get_effects = _get_effects  # the recursion looks it up in xdsl.traits
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)
