"""The `fold-constants` pass: evaluate what is known at compile time."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.nn.names import op_result_names
from graph_opt.interpreter.runner import make_interpreter
from graph_opt.passes.common.constant_patterns import (
    FoldConstantOps,
    deduplicate_constants,
)
from graph_opt.passes.common.shape_patterns import MaterializeShapeQueries
from graph_opt.passes.fold_constants.reassociation_patterns import MergeConstantFactors
from graph_opt.passes.fold_constants.reshape_sinking_patterns import (
    RESHAPE_SINKING_PATTERNS,
)
from graph_opt.passes.fold_constants.shape_arithmetic_patterns import (
    SHAPE_ARITHMETIC_PATTERNS,
)
from graph_opt.passes.fold_constants.simplify_patterns import SIMPLIFY_PATTERNS
from graph_opt.passes.fold_constants.transpose_patterns import TRANSPOSE_PATTERNS
from graph_opt.passes.refine_shapes.refine_shapes import refine_shapes
from graph_opt.remarks import warn
from graph_opt.rewriting.op_dispatch import rewrite_with
from graph_opt.statistics import Statistics, record

FOLD_CONSTANTS_STATISTICS: Statistics = {
    "constant ops left for size": "Ops on constants left unfolded: their result would exceed max-size",
    "opaque ops left on constants": "Opaque ops on constants left unfolded: random, a subgraph, not a tensor result, or evaluation failed",
}


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Fold ops on constants, materialize static shapes, drop ops that do nothing for their shapes.

    Side-effect-free ops whose operands are all nn.constant are evaluated by the
    reference interpreter, nn.opaque ones too when they hold an ONNX operator
    whose result depends on its inputs alone (not RandomNormal, Multinomial,
    Bernoulli, Dropout, ...; not If, Loop, Scan, SequenceMap; tensor results);
    the opaque ops on constants it leaves are counted and named in a warning
    with the reason;
    nn.shape, nn.size and nn.rank become constants when the dims they read are
    static, so Shape -> Gather -> Concat -> Reshape chains collapse; reshapes to
    the same shape, identity transposes, same-type casts, x + 0, x * 1, zero
    pads, unbounded clips and reductions over size-1 axes are removed;
    transposes of transposes merge, and a transpose that only moves size-1
    dims becomes a reshape; an ONNX operator kept opaque at import becomes nn
    ops once its inputs are constant (a Resize of computed sizes); equal
    constants are merged; result types are then refined (`refine-shapes`).
    """

    name = "fold-constants"

    statistics: ClassVar[Statistics] = FOLD_CONSTANTS_STATISTICS

    max_size: int = field(
        default=1 << 16,
        metadata={"help": "most elements a fold may add to the constants it replaces"},
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_size < 0:
            raise PassFailedException(
                f"fold-constants: max-size must be 0 or more, got {self.max_size}"
            )
        _, folds, left_for_size = fold_and_report(op, self.max_size)
        if not folds and not left_for_size:
            warn("fold-constants: found nothing to fold")


def fold_constants_patterns(
    module: ModuleOp, max_size: int, too_large: dict[Operation, str] | None = None
) -> list[RewritePattern]:
    """The patterns of `fold-constants` (which then merges equal constants) on
    `module`; the last evaluates ops on constants, noting in `too_large` those
    it leaves for size."""
    interpreter = make_interpreter(module)
    folder = FoldConstantOps(interpreter, max_size)
    if too_large is not None:
        folder.too_large = too_large
    return [
        MaterializeShapeQueries(interpreter),
        *(pattern() for pattern in SIMPLIFY_PATTERNS),
        MergeConstantFactors(),
        *(pattern() for pattern in SHAPE_ARITHMETIC_PATTERNS),
        *(pattern() for pattern in TRANSPOSE_PATTERNS),
        *(pattern() for pattern in RESHAPE_SINKING_PATTERNS),
        folder,
    ]


def fold_constants(module: ModuleOp, max_size: int) -> bool:
    """Run `fold-constants` on `module`; whether it changed anything."""
    return fold_and_report(module, max_size)[0]


def fold_and_report(module: ModuleOp, max_size: int) -> tuple[bool, int, int]:
    """Run `fold-constants`: whether it changed anything, how many folds it
    made (merged constants included, dead ops erased on the way not), and how
    many ops it left unfolded for size (reported as a warning)."""
    patterns = fold_constants_patterns(module, max_size)
    changed, folds = False, 0
    while True:
        step_changed, step_folds = rewrite_with(module, patterns)
        merged = deduplicate_constants(module)
        changed = changed or step_changed or merged
        folds += step_folds + int(merged)
        # types only become more precise; a static one may let more fold
        if not refine_shapes(module):
            break
        # ops declined before may fit their refined types now
        patterns[-1].declined.clear()  # type: ignore[attr-defined]
        changed = True
    left = report_too_large(patterns[-1].too_large, max_size)  # type: ignore[attr-defined]
    report_opaque_left(patterns[-1].opaque_left)  # type: ignore[attr-defined]
    return changed, folds, left


def report_too_large(too_large: dict[Operation, str], max_size: int) -> int:
    """Warn about the ops left unfolded for size that are still in the module; how many."""
    left = [op for op in too_large if op.parent is not None]
    record("constant ops left for size", len(left))
    if left:
        first = left[0]
        warn(
            f"fold-constants: {len(left)} op(s) on constants left unfolded for size "
            f"(first: {_label(first)}: {too_large[first]}); raise max-size "
            f"(now {max_size}) or --max-tensor-size to fold them"
        )
    return len(left)


def report_opaque_left(opaque_left: dict[Operation, str]) -> None:
    """Warn about the nn.opaque ops on constants left unfolded, by operator."""
    left = {op: why for op, why in opaque_left.items() if op.parent is not None}
    record("opaque ops left on constants", len(left))
    if not left:
        return
    reasons = {op.op_type.data: why for op, why in left.items()}  # type: ignore[attr-defined]
    listed = "; ".join(f"{op_type}: {why}" for op_type, why in reasons.items())
    warn(f"fold-constants: {len(left)} nn.opaque op(s) on constants left ({listed})")


def _label(op: Operation) -> str:
    name = op_result_names(op)[0] if op.results else None
    return f"{op.name} {name}" if name else op.name
