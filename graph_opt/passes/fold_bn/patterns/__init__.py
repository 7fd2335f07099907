"""Patterns folding inference batch norms (and decomposed x * s + t chains) into
the linear op before them, or into the unpadded conv after them."""

from graph_opt.passes.fold_bn.patterns.patterns import (
    FoldBatchNormIntoFollowingConv,
    FoldBatchNormIntoPrecedingLinear,
    FoldDecomposedBatchNorm,
    explain_fold_bn,
)


def fold_bn_patterns():
    """The patterns in the order fold-bn applies them (a fold into the preceding op is preferred)."""
    return [
        FoldBatchNormIntoPrecedingLinear(),
        FoldDecomposedBatchNorm(),
        FoldBatchNormIntoFollowingConv(),
    ]


__all__ = [
    "FoldBatchNormIntoFollowingConv",
    "FoldBatchNormIntoPrecedingLinear",
    "FoldDecomposedBatchNorm",
    "explain_fold_bn",
    "fold_bn_patterns",
]
