"""Rewrite patterns that fold inference batch norms into linear ops."""

from __future__ import annotations

from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from graph_opt.dialects.nn.elementwise import AddOp, DivOp, MulOp, SubOp
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.passes.fold_bn.patterns.chain import (
    affine_operands,
    continues_chain,
    erase_chain_fold,
    plan_chain_fold,
)
from graph_opt.passes.fold_bn.patterns.into_conv import (
    erase_input_fold,
    plan_input_fold,
)
from graph_opt.statistics import Statistics, count

DECOMPOSED_FOLDED = "decomposed batch norms (x * s + t) folded"
FOLD_BN_PATTERN_STATISTICS: Statistics = {
    DECOMPOSED_FOLDED: "Batch norms written out as a multiply and an add, folded"
}
"""fold-bn's statistic of the chains FoldDecomposedBatchNorm folds."""


class FoldBatchNormIntoPrecedingLinear(RewritePattern):
    """linear -> [bias-add, identity, reshape...] -> nn.batch_norm  =>  linear'."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormOp, rewriter: PatternRewriter) -> None:
        plan = plan_chain_fold(op)
        if isinstance(plan, str):
            return
        erase_chain_fold(plan, rewriter)


class FoldDecomposedBatchNorm(RewritePattern):
    """linear -> mul(const) -> add(const) (per-channel x * s + t)  =>  linear'.

    Anchored at the last affine op of the chain; a chain without a mul or div is
    a plain bias-add and left alone.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: AddOp | SubOp | MulOp | DivOp, rewriter: PatternRewriter
    ) -> None:
        if affine_operands(op) is None or continues_chain(op):
            return
        plan = plan_chain_fold(op)
        if isinstance(plan, str) or not plan.has_scale:
            return
        erase_chain_fold(plan, rewriter)
        count(DECOMPOSED_FOLDED)


class FoldBatchNormIntoFollowingConv(RewritePattern):
    """nn.batch_norm -> nn.conv without padding  =>  conv' (scale into the filter, shift into the bias)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormOp, rewriter: PatternRewriter) -> None:
        plan = plan_input_fold(op)
        if isinstance(plan, str):
            return
        erase_input_fold(plan, rewriter)


def explain_fold_bn(op: BatchNormOp) -> str | None:
    """Why the fold-bn patterns leave `op` alone, or None when one folds it."""
    into_preceding = plan_chain_fold(op)
    if not isinstance(into_preceding, str):
        return None
    into_following = plan_input_fold(op)
    if not isinstance(into_following, str):
        return None
    return f"{into_preceding}; and {into_following}"
