"""refine-shapes and the region types it infers."""

from graph_opt.passes.refine_shapes.refine_shapes import RefineShapesPass

__all__ = ["RefineShapesPass"]
