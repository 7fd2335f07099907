"""Deliberately broken passes for the pass author's tools, loaded as a plugin.

`sub-const-to-add` rewrites `x - c` (c a constant) to `x + (-c)`; `register()`
registers a broken version of it and of two siblings, `register(fixed=True)`
the correct one under the same name:

- `sub-const-to-add` (broken): forgets to negate c, so the numbers change;
- `sub-const-to-add-crash`: reads a third dim the constant may not have (IndexError);
- `sub-const-to-add-bad-type`: gives the add the constant's type, not the
  broadcast one (verification fails when c broadcasts).

`chain_model` writes a long module with one `x - c` planted in it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
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
            _ = op.rhs.type.get_shape()[2]  # the bug: assumes a 3-D constant
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
    """The broken passes, or (`fixed`) the correct one under each name."""
    api.register_pass(_pass("sub-const-to-add", "fixed" if fixed else "numbers"))
    api.register_pass(_pass("sub-const-to-add-crash", "fixed" if fixed else "crash"))
    api.register_pass(
        _pass("sub-const-to-add-bad-type", "fixed" if fixed else "bad-type")
    )


if __name__ != "__main__":
    register()


def chain_model(
    ops: int = 500, fault_at: int = 250, broadcast: bool = False, seed: int = 0
) -> str:
    """A chain of `ops` ops: elementwise ops on constants, one `x - c` at about
    `fault_at` (its constant of shape 1x1 with `broadcast`)."""
    rng = np.random.default_rng(seed)
    t = "tensor<1x8xf32>"
    lines = [f"func.func @model(%x: {t}) -> {t} {{"]
    value, count, i = "%x", 0, 0
    kinds = [
        ("nn.mul", 0.9, 1.1),
        ("nn.add", -0.2, 0.2),
        ("nn.max", -5.0, -4.0),
        ("nn.div", 0.9, 1.1),
    ]
    while count < ops:
        i += 1
        fault = count == fault_at
        kind, low, high = ("nn.sub", 0.5, 1.5) if fault else kinds[i % 4]
        c = "tensor<1x1xf32>" if fault and broadcast else t
        numbers = rng.uniform(low, high, 1 if c != t else 8)
        text = ", ".join(f"{v:.3f}" for v in numbers)
        lines.append(f"  %c{i} = nn.constant dense<[[{text}]]> : {c}")
        lines.append(f"  %v{i} = {kind} {value}, %c{i} : ({t}, {c}) -> {t}")
        value, count = f"%v{i}", count + 2
    lines += [f"  func.return {value} : {t}", "}", ""]
    return "\n".join(lines)
