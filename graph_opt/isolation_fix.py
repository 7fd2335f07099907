"""IsolatedFromAbove verified in linear time.

xDSL 0.74's `IsolatedFromAbove.verify` asks `op.is_ancestor(owner)` for every
operand nested in the op, a walk up to the op from each: quadratic in the
nesting depth (2,000 nested scf.if in a function cost seconds per
verification). The same check, remembering the nodes already found inside the
op, walks each node once; the errors are xDSL's.
"""

from __future__ import annotations

from xdsl.ir import Operation, Region
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException


def _verify(self: IsolatedFromAbove, op: Operation) -> None:
    inside: set[object] = {op}

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
            for child_op in block.ops:
                for operand in child_op.operands:
                    if operand.owner is op or not defined_inside(operand.owner):
                        raise VerifyException(
                            "Operation using value defined out of its "
                            f"IsolatedFromAbove parent: {child_op}"
                        )
                if not child_op.has_trait(IsolatedFromAbove):
                    regions += child_op.regions


def check_isolation_in_linear_time() -> None:
    IsolatedFromAbove.verify = _verify  # type: ignore[method-assign]
