"""auto-parallel and its batch splitting."""

from graph_opt.passes.auto_parallel.auto_parallel import AutoParallelPass

__all__ = ["AutoParallelPass"]
