"""The default optimization pipeline, run to a fixed point.

`PIPELINE` runs the passes one after the other, each with its own walks over
the whole graph. `OptimizePass` reaches the same fixed point with fewer walks:
one walker applies the patterns of prune, fold-constants and fold-bn together,
then one applies those and fuse-ops', followed by merging equal constants (the
rest of fold-constants); cse and dce run after, each only when a cheap walk
finds something it could change.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import is_trivially_dead, region_dce
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.gc_pause import collector_paused
from graph_opt.passes.common.constant_patterns import deduplicate_constants
from graph_opt.passes.common.fusion_patterns import FUSION_STATISTICS
from graph_opt.passes.fold_bn.fold_bn import fold_batch_norms
from graph_opt.passes.fold_bn.patterns import fold_bn_patterns
from graph_opt.passes.fold_bn.patterns.patterns import FOLD_BN_PATTERN_STATISTICS
from graph_opt.passes.fold_constants.fold_constants import (
    FOLD_CONSTANTS_STATISTICS,
    FoldConstantsPass,
    fold_constants,
    fold_constants_patterns,
    report_too_large,
)
from graph_opt.passes.fuse_ops.fuse_ops import fuse_ops, fuse_patterns
from graph_opt.passes.fuse_ops.sibling_matmul_patterns import SIBLING_STATISTICS
from graph_opt.passes.prune.prune import prune, prune_patterns
from graph_opt.passes.refine_shapes.refine_shapes import refine_shapes
from graph_opt.progress import Steps
from graph_opt.rewriting.erasure import has_unused_results
from graph_opt.rewriting.op_dispatch import dispatching_walker, walk_ops
from graph_opt.statistics import Statistics
from graph_opt.xdsl_compat.ir import operand_values
from graph_opt.xdsl_compat.traits import effects_memoized


def op_count(module: ModuleOp) -> int:
    return sum(1 for _ in walk_ops(module.body, reverse=False, region_first=False))


def may_have_common_subexpressions(module: ModuleOp) -> bool:
    """Whether `cse` could change `module`, checked in one cheap walk.

    cse erases trivially dead ops and replaces an op by an earlier one with the
    same name, operands, properties, attributes and result types; two such ops
    have the same name and operands (and nn.constants the same value bytes).
    """
    seen: set[tuple[object, ...]] = set()
    for op in walk_ops(module.body, reverse=False, region_first=False):
        if has_unused_results(op) and is_trivially_dead(op):
            return True
        if operands := operand_values(op):
            key = (op.name, operands)
        elif isinstance(op, ConstantOp):
            key = (op.name, op.value.data.data)
        else:
            key = (op.name,)
        if key in seen:
            return True
        seen.add(key)
    return False


def eliminate_common_subexpressions(module: ModuleOp) -> bool:
    """Run `cse`; whether it changed anything (it only ever erases ops)."""
    if not may_have_common_subexpressions(module):
        return False
    before = op_count(module)
    with effects_memoized():
        cse(module)
    return op_count(module) != before


def fold_constants_by_default(module: ModuleOp) -> bool:
    return fold_constants(module, FoldConstantsPass().max_size)


def may_have_dead_code(module: ModuleOp) -> bool:
    """Whether `dce` could change `module`, checked in one cheap walk.

    In a func.func body a value is defined before its uses, so ops that dce
    would erase include a trivially dead one: the last of them. Ops elsewhere
    (nested regions, module-level ops with operands) are left to dce.
    """
    for op in walk_ops(module.body, reverse=False, region_first=False):
        parent = op.parent_op()
        if not isinstance(parent, FuncOp) and (
            parent is not module or operand_values(op)
        ):
            return True
        if has_unused_results(op) and is_trivially_dead(op):
            return True
    return False


def eliminate_dead_code(module: ModuleOp) -> bool:
    if not may_have_dead_code(module):
        return False
    with effects_memoized():
        return region_dce(module.body)


PIPELINE: tuple[Callable[[ModuleOp], bool], ...] = (
    prune,
    fold_constants_by_default,
    fold_batch_norms,
    fuse_ops,
    eliminate_common_subexpressions,
    eliminate_dead_code,
)
"""prune, fold-constants, fold-bn, fuse-ops, cse and dce, each as a function
that says whether it changed the module."""


_left_for_size: ContextVar[dict[Operation, str] | None] = ContextVar(
    "optimize_left_for_size", default=None
)
"""The ops on constants that this optimize run left unfolded for size."""


def simplify(module: ModuleOp, *, fuse: bool) -> bool:
    """Apply the patterns of prune, fold-constants and fold-bn (and fuse-ops with
    `fuse`) until none applies; whether anything changed.

    On each op they are tried in pipeline order. Fusion waits for a first run
    without it: a conv or matmul it fuses could no longer take a batch norm.
    """
    patterns = [
        *prune_patterns(),
        *fold_constants_patterns(
            module, FoldConstantsPass().max_size, _left_for_size.get()
        ),
        *fold_bn_patterns(),
        *(fuse_patterns() if fuse else ()),
    ]
    return dispatching_walker(patterns).rewrite_module(module)


def simplify_and_fuse(module: ModuleOp) -> bool:
    """`simplify` with fusion, then merging equal constants and refining result
    types (the rest of fold-constants), again while refined types let patterns
    apply (a shape query on a dim that became static)."""
    changed = False
    while True:
        step = simplify(module, fuse=True)
        step = deduplicate_constants(module) or step
        if not step:
            return changed
        changed = True
        # a type can only become more precise after a fold
        if not refine_shapes(module):
            return changed


FIXED_POINT_STEPS: tuple[Callable[[ModuleOp], bool], ...] = (
    simplify_and_fuse,
    eliminate_common_subexpressions,
    eliminate_dead_code,
)
"""Steps whose common fixed point is that of `PIPELINE`: the first applies
every pattern of the pattern passes, so no pass of it changes anything there."""


_stage_times: ContextVar[dict[str, float] | None] = ContextVar(
    "optimize_stage_times", default=None
)


@contextmanager
def timing_stages() -> Iterator[dict[str, float]]:
    """Seconds spent in each of `optimize`'s stages while in the block, by stage name."""
    times: dict[str, float] = {}
    token = _stage_times.set(times)
    try:
        yield times
    finally:
        _stage_times.reset(token)


def _run_stage(stage: Callable[[ModuleOp], bool], module: ModuleOp) -> bool:
    times = _stage_times.get()
    if times is None:
        return stage(module)
    start = time.perf_counter()
    try:
        return stage(module)
    finally:
        name = stage.__name__.replace("_", "-")
        times[name] = times.get(name, 0.0) + time.perf_counter() - start


def simplify_without_fusion(module: ModuleOp) -> bool:
    return simplify(module, fuse=False)


@dataclass(frozen=True)
class OptimizePass(ModulePass):
    """Run prune, fold-constants, fold-bn, fuse-ops, cse and dce until the graph stops changing."""

    name = "optimize"

    statistics: ClassVar[Statistics] = {
        **FOLD_BN_PATTERN_STATISTICS,
        **FOLD_CONSTANTS_STATISTICS,
        **FUSION_STATISTICS,
        **SIBLING_STATISTICS,
    }

    max_iterations: int = 8

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        """Stop once every step has run, without a change, on the module the last
        change left: each step runs its own rewrites to a fixed point, so running
        the step that made that change again would change nothing either."""
        steps = Steps("optimize")
        left_for_size: dict[Operation, str] = {}
        token = _left_for_size.set(left_for_size)
        try:
            with collector_paused():
                steps.step("simplify")
                _run_stage(simplify_without_fusion, op)
                pending = len(FIXED_POINT_STEPS)
                for _ in range(self.max_iterations):
                    for run in FIXED_POINT_STEPS:
                        steps.step(run.__name__.replace("_", "-"))
                        changed = _run_stage(run, op)
                        pending = len(FIXED_POINT_STEPS) - 1 if changed else pending - 1
                        if pending == 0:
                            return
        finally:
            _left_for_size.reset(token)
            steps.close()
            report_too_large(left_for_size, FoldConstantsPass().max_size)
        raise PassFailedException(
            f"optimize did not reach a fixed point in {self.max_iterations} iterations"
        )
