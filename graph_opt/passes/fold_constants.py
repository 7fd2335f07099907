"""The `fold-constants` pass: evaluate what is known at compile time."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern
from xdsl.utils.exceptions import PassFailedException

from graph_opt.interpreter.runner import make_interpreter
from graph_opt.passes.constant_patterns import (
    FoldConstantOps,
    deduplicate_constants,
)
from graph_opt.passes.op_dispatch import dispatching_walker
from graph_opt.passes.refine_shapes import refine_shapes
from graph_opt.passes.shape_patterns import MaterializeShapeQueries
from graph_opt.passes.simplify_patterns import SIMPLIFY_PATTERNS
from graph_opt.remarks import warn


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Fold ops on constants, materialize static shapes, drop ops that do nothing for their shapes.

    Side-effect-free ops whose operands are all nn.constant are evaluated by the
    reference interpreter (nn.opaque only for known-pure ONNX operators);
    nn.shape, nn.size and nn.rank become constants when the dims they read are
    static, so Shape -> Gather -> Concat -> Reshape chains collapse; reshapes to
    the same shape, identity transposes, same-type casts, x + 0, x * 1, zero
    pads, unbounded clips and reductions over size-1 axes are removed; equal
    constants are merged; result types are then refined (`refine-shapes`).
    """

    name = "fold-constants"

    max_size: int = field(
        default=1 << 16,
        metadata={"help": "most elements a fold may add to the constants it replaces"},
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_size < 0:
            raise PassFailedException(
                f"fold-constants: max-size must be 0 or more, got {self.max_size}"
            )
        if not fold_constants(op, self.max_size):
            warn("fold-constants: found nothing to fold")


def fold_constants_patterns(module: ModuleOp, max_size: int) -> list[RewritePattern]:
    """The patterns of `fold-constants` (which then merges equal constants) on `module`."""
    interpreter = make_interpreter(module)
    return [
        MaterializeShapeQueries(interpreter),
        *(pattern() for pattern in SIMPLIFY_PATTERNS),
        FoldConstantOps(interpreter, max_size),
    ]


def fold_constants(module: ModuleOp, max_size: int) -> bool:
    """Run `fold-constants` on `module`; whether it changed anything."""
    patterns = fold_constants_patterns(module, max_size)
    folded = dispatching_walker(patterns).rewrite_module(module)
    folded = deduplicate_constants(module) or folded
    if folded:  # a type can only become more precise after a fold
        refine_shapes(module)
    return folded
