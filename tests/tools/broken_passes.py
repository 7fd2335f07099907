"""Deliberately broken passes for the pass author's tools, loaded as a plugin.

`sub-const-to-add` rewrites `x - c` (c a constant) to `x + (-c)`; `register()`
registers a broken version of it and of two siblings, `register(fixed=True)`
the correct one under the same name:

- `sub-const-to-add` (broken): forgets to negate c, so the numbers change;
- `sub-const-to-add-crash`: reads a dim the constant may not have (IndexError);
- `sub-const-to-add-bad-type`: gives the add the constant's type, not the
  broadcast one (verification fails when c broadcasts).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from graph_opt import api
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.elementwise import AddOp, SubOp


class SubConstToAdd(RewritePattern):
    def __init__(self, mode: str):
        self.mode = mode

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SubOp, rewriter: PatternRewriter) -> None:
        constant = op.rhs.owner
        if not isinstance(constant, ConstantOp):
            return  # only x - c
        value = constant.to_array()
        if self.mode == "crash":
            _ = op.rhs.type.get_shape()[1]  # the bug: assumes a 2-D constant
        negated = ConstantOp.from_array(value if self.mode == "numbers" else -value)
        result_type = (
            constant.output.type if self.mode == "bad-type" else op.output.type
        )
        add = AddOp.create(
            operands=[op.lhs, negated.output], result_types=[result_type]
        )
        rewriter.replace(op, [negated, add], [add.output])


def _pass(pass_name: str, mode: str) -> type[ModulePass]:
    @dataclass(frozen=True)
    class SubConstToAddPass(ModulePass):
        """x - c -> x + (-c)."""

        name = pass_name

        def apply(self, ctx, op) -> None:
            PatternRewriteWalker(SubConstToAdd(mode)).rewrite_module(op)

    return SubConstToAddPass


def register(fixed: bool = False) -> None:
    api.register_pass(_pass("sub-const-to-add", "fixed" if fixed else "numbers"))
    api.register_pass(_pass("sub-const-to-add-crash", "crash"))
    api.register_pass(_pass("sub-const-to-add-bad-type", "bad-type"))


if __name__ != "__main__":
    register()
