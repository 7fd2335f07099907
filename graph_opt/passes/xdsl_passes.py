"""xDSL's cse, dce and canonicalize under their own names, saying when they changed nothing.

graph-opt's passes warn when they find no work; these do the same so that
every pass `--list-passes` offers does.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import GreedyRewritePatternApplier
from xdsl.transforms.canonicalize import (
    CanonicalizationRewritePattern,
    CanonicalizePass,
)
from xdsl.transforms.common_subexpression_elimination import (
    CommonSubexpressionElimination,
)
from xdsl.transforms.dead_code_elimination import DeadCodeElimination, region_dce

from graph_opt.passes.optimize import (
    eliminate_common_subexpressions,
    eliminate_dead_code,
)
from graph_opt.remarks import warn
from graph_opt.rewriting.placement import keeping_placement


class CommonSubexpressionEliminationPass(CommonSubexpressionElimination):
    """Eliminate common subexpressions (xDSL)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not eliminate_common_subexpressions(op):
            warn("cse: found no common subexpression")


class DeadCodeEliminationPass(DeadCodeElimination):
    """Remove ops whose results are unused and that have no side effects (xDSL)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not eliminate_dead_code(op):
            warn("dce: found no dead code")


class CanonicalizationPass(CanonicalizePass):
    """Apply the canonicalization patterns of every op (xDSL)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # xDSL's CanonicalizePass.apply, keeping whether the walk changed the module
        pattern = GreedyRewritePatternApplier(
            [CanonicalizationRewritePattern()], ctx=ctx, folding_enabled=True
        )
        walker = keeping_placement(pattern, post_walk_func=region_dce)
        if not walker.rewrite_module(op):
            warn("canonicalize: found nothing to canonicalize")
