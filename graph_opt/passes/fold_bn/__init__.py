"""fold-bn and its patterns."""

from graph_opt.passes.fold_bn.fold_bn import FoldBatchNormPass

__all__ = ["FoldBatchNormPass"]
