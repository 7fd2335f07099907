"""fold-constants and the pattern families it runs."""

from graph_opt.passes.fold_constants.fold_constants import FoldConstantsPass

__all__ = ["FoldConstantsPass"]
