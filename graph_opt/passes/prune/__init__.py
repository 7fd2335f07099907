"""prune and the loop patterns only it runs."""

from graph_opt.passes.prune.prune import PrunePass

__all__ = ["PrunePass"]
