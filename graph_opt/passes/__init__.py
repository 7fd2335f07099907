"""graph-opt's passes, registered lazily: name -> function importing the pass class."""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_prune():
    from graph_opt.passes.prune.prune import PrunePass

    return PrunePass


def get_fold_constants():
    from graph_opt.passes.fold_constants.fold_constants import FoldConstantsPass

    return FoldConstantsPass


def get_partition_pattern():
    from graph_opt.passes.partition_pattern import PartitionPatternPass

    return PartitionPatternPass


def get_bind_params():
    from graph_opt.passes.bind_params import BindParamsPass

    return BindParamsPass


def get_fold_bn():
    from graph_opt.passes.fold_bn.fold_bn import FoldBatchNormPass

    return FoldBatchNormPass


def get_fuse_ops():
    from graph_opt.passes.fuse_ops.fuse_ops import FuseOpsPass

    return FuseOpsPass


def get_optimize():
    from graph_opt.passes.optimize import OptimizePass

    return OptimizePass


def get_lower_to_tosa():
    from graph_opt.lowering.to_tosa import LowerToTosaPass

    return LowerToTosaPass


def get_convert_layout():
    from graph_opt.passes.convert_layout.convert_layout import ConvertLayoutPass

    return ConvertLayoutPass


def get_convert_to_int():
    from graph_opt.passes.convert_to_int.convert_to_int import ConvertToIntPass

    return ConvertToIntPass


def get_quantize():
    from graph_opt.passes.quantize.quantize import QuantizePass

    return QuantizePass


def get_calibrate():
    from graph_opt.passes.calibrate.calibrate import CalibratePass

    return CalibratePass


def get_refine_shapes():
    from graph_opt.passes.refine_shapes.refine_shapes import RefineShapesPass

    return RefineShapesPass


def get_memory_plan():
    from graph_opt.passes.memory_plan import MemoryPlanPass

    return MemoryPlanPass


def get_swap():
    from graph_opt.passes.swap import SwapPass

    return SwapPass


def get_recompute():
    from graph_opt.passes.recompute import RecomputePass

    return RecomputePass


def get_schedule_memory():
    from graph_opt.passes.schedule_memory import ScheduleMemoryPass

    return ScheduleMemoryPass


def get_auto_parallel():
    from graph_opt.passes.auto_parallel.auto_parallel import AutoParallelPass

    return AutoParallelPass


def get_freeze_variables():
    from graph_opt.passes.freeze_variables import FreezeVariablesPass

    return FreezeVariablesPass


def get_cse():
    from graph_opt.passes.xdsl_passes import CommonSubexpressionEliminationPass

    return CommonSubexpressionEliminationPass


def get_dce():
    from graph_opt.passes.xdsl_passes import DeadCodeEliminationPass

    return DeadCodeEliminationPass


def get_canonicalize():
    from graph_opt.passes.xdsl_passes import CanonicalizationPass

    return CanonicalizationPass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {
        "lower-to-tosa": get_lower_to_tosa,
        "fuse-ops": get_fuse_ops,
        "optimize": get_optimize,
        "fold-bn": get_fold_bn,
        "partition-pattern": get_partition_pattern,
        "bind-params": get_bind_params,
        "prune": get_prune,
        "fold-constants": get_fold_constants,
        "convert-to-int": get_convert_to_int,
        "convert-layout": get_convert_layout,
        "quantize": get_quantize,
        "calibrate": get_calibrate,
        "refine-shapes": get_refine_shapes,
        "memory-plan": get_memory_plan,
        "swap": get_swap,
        "recompute": get_recompute,
        "schedule-memory": get_schedule_memory,
        "auto-parallel": get_auto_parallel,
        "freeze-variables": get_freeze_variables,
    }


XDSL_PASS_OVERRIDES: dict[str, Callable[[], type[ModulePass]]] = {
    "cse": get_cse,
    "dce": get_dce,
    "canonicalize": get_canonicalize,
}
"""xDSL passes that graph-opt's tools replace by a subclass warning when it changed nothing."""
