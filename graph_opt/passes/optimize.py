"""The default optimization pipeline, run to a fixed point."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import PassFailedException

from graph_opt.gc_pause import collector_paused
from graph_opt.passes.fold_bn import fold_batch_norms
from graph_opt.passes.fold_constants import FoldConstantsPass, fold_constants
from graph_opt.passes.fuse_ops import fuse_ops
from graph_opt.passes.prune import prune


def op_count(module: ModuleOp) -> int:
    return sum(1 for _ in module.walk())


def eliminate_common_subexpressions(module: ModuleOp) -> bool:
    """Run `cse`; whether it changed anything (it only ever erases ops)."""
    before = op_count(module)
    cse(module)
    return op_count(module) != before


def fold_constants_by_default(module: ModuleOp) -> bool:
    return fold_constants(module, FoldConstantsPass().max_size)


def eliminate_dead_code(module: ModuleOp) -> bool:
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


@dataclass(frozen=True)
class OptimizePass(ModulePass):
    """Run prune, fold-constants, fold-bn, fuse-ops, cse and dce until the graph stops changing."""

    name = "optimize"

    max_iterations: int = 8

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        """Stop once every pass has run, without a change, on the module the last
        change left: each pass runs its own rewrites to a fixed point, so running
        the pass that made that change again would change nothing either."""
        pending = len(PIPELINE)
        with collector_paused():
            for _ in range(self.max_iterations):
                for run in PIPELINE:
                    pending = len(PIPELINE) - 1 if run(op) else pending - 1
                    if pending == 0:
                        return
        raise PassFailedException(
            f"optimize did not reach a fixed point in {self.max_iterations} iterations"
        )
