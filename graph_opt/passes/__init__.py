"""graph-opt's passes, registered lazily: name -> function importing the pass class."""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_prune():
    from graph_opt.passes.prune import PrunePass

    return PrunePass


def get_fold_constants():
    from graph_opt.passes.fold_constants import FoldConstantsPass

    return FoldConstantsPass


def get_partition_pattern():
    from graph_opt.passes.partition_pattern import PartitionPatternPass

    return PartitionPatternPass


def get_fold_bn():
    from graph_opt.passes.fold_bn import FoldBatchNormPass

    return FoldBatchNormPass


def get_fuse_ops():
    from graph_opt.passes.fuse_ops import FuseOpsPass

    return FuseOpsPass


def get_optimize():
    from graph_opt.passes.optimize import OptimizePass

    return OptimizePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {
        "fuse-ops": get_fuse_ops,
        "optimize": get_optimize,
        "fold-bn": get_fold_bn,
        "partition-pattern": get_partition_pattern,
        "prune": get_prune,
        "fold-constants": get_fold_constants,
    }
