"""Base of the lowering patterns: a pattern that declines says why, for the pass's diagnostic."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import tosa
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import RewritePattern

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dense import to_numpy


class LoweringPattern(RewritePattern):
    """Records, per op, why it was not lowered (`declined`), shared by a pass's patterns."""

    def __init__(self, declined: dict[Operation, str]):
        self.declined = declined

    def decline(self, op: Operation, reason: str) -> None:
        self.declined[op] = reason


def constant_array(value: SSAValue) -> np.ndarray | None:
    """The array held by an nn.constant or an already lowered tosa.const, else None."""
    owner = value.owner
    if isinstance(owner, ConstantOp):
        return owner.to_array()
    if isinstance(owner, tosa.ConstOp):
        return to_numpy(owner.values)
    return None
