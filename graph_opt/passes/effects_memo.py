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

from xdsl import traits
from xdsl.ir import Operation


@contextmanager
def effects_memoized() -> Iterator[None]:
    """Remember `xdsl.traits.get_effects` per op for the body (which must not add ops)."""
    original = traits.get_effects
    memo: dict[Operation, object] = {}

    def get_effects(op: Operation):
        if op not in memo:
            memo[op] = original(op)
        return memo[op]

    traits.get_effects = get_effects
    try:
        yield
    finally:
        traits.get_effects = original
