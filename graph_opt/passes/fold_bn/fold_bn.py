"""fold-bn: fold inference batch norms into adjacent linear ops."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from graph_opt.dialects.nn.names import op_result_names
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.passes.fold_bn.patterns import explain_fold_bn, fold_bn_patterns
from graph_opt.passes.fold_bn.patterns.patterns import (
    DECOMPOSED_FOLDED,
    FOLD_BN_PATTERN_STATISTICS,
)
from graph_opt.remarks import warn
from graph_opt.rewriting.op_dispatch import dispatching_walker, rewrite_with
from graph_opt.statistics import Statistics, record

__all__ = ["FoldBatchNormPass", "explain_fold_bn", "fold_batch_norms"]


@dataclass(frozen=True)
class FoldBatchNormPass(ModulePass):
    """Fold inference batch norms into the conv, conv_transpose, matmul or gemm before them.

    y = BN(W x + b) becomes W' x + b' with W' = W * s and b' = (b - mean) * s + beta,
    s = gamma / sqrt(var + eps) per output channel, computed in float64. Folds
    through bias-adds, identities and channel-preserving reshapes, folds
    decomposed x * s + t chains, and a batch norm into an unpadded conv after it.
    A matmul's, gemm's, conv's or conv_transpose's weight mapped from the
    model file stays a formula (W times s along its output channels),
    computed piece by piece when read or written (the same bits as computed
    at once); a fake-quantized conv filter is computed at once.
    Weights shared with other ops are copied, never changed; a linear op whose
    result has other users is left alone. With `explain`, every batch norm that
    stays is reported on stderr with the reason.
    """

    name = "fold-bn"

    statistics: ClassVar[Statistics] = {
        "nn.batch_norm folded": "Batch norms folded into the conv, matmul or scale next to them",
        "nn.batch_norm left": "Batch norms left (each said with --explain)",
        **FOLD_BN_PATTERN_STATISTICS,
    }

    explain: bool = field(
        default=False,
        metadata={"help": "print why each remaining batch norm was not folded"},
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        before = _batch_norms(op)
        record(DECOMPOSED_FOLDED, 0)  # counted by the pattern as it folds
        _, folds = rewrite_with(op, fold_bn_patterns())
        left = [(bn, explain_fold_bn(bn)) for bn in _batch_norms(op)]
        left = [(bn, reason) for bn, reason in left if reason is not None]
        record("nn.batch_norm folded", len(before) - len(left))
        record("nn.batch_norm left", len(left))
        if self.explain:
            for batch_norm, reason in left:
                print(
                    f"fold-bn: {_label(batch_norm)} not folded: {reason}",
                    file=sys.stderr,
                )
        if left and not self.explain:  # explain has said which stay, and why
            batch_norm, reason = left[0]
            warn(
                f"fold-bn: folded {len(before) - len(left)} of {len(before)} batch "
                f"norms; {len(left)} left (first: {_label(batch_norm)}: {reason}; "
                "fold-bn{explain=true} lists all)"
            )
        elif not left and not folds:
            warn("fold-bn: found no batch norm to fold")


def fold_batch_norms(module: ModuleOp) -> bool:
    """Run `fold-bn` (without `explain`) on `module`; whether it changed anything."""
    return dispatching_walker(fold_bn_patterns()).rewrite_module(module)


def _batch_norms(module: ModuleOp) -> list[BatchNormOp]:
    return [op for op in module.walk() if isinstance(op, BatchNormOp)]


def _label(op: BatchNormOp) -> str:
    name = op_result_names(op)[0] or op.output.name_hint
    return f"nn.batch_norm {name}" if name else "nn.batch_norm"
