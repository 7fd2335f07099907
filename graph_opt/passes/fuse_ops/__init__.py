"""fuse-ops and the sibling-matmul patterns only it runs."""

from graph_opt.passes.fuse_ops.fuse_ops import FuseOpsPass

__all__ = ["FuseOpsPass"]
