"""The `fuse-ops` pass: replace op chains by the fused ops that runtimes have kernels for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern

from graph_opt.passes.common.fusion_patterns import FUSION_PATTERNS, FUSION_STATISTICS
from graph_opt.passes.fuse_ops.sibling_matmul_patterns import (
    SIBLING_PATTERNS,
    SIBLING_STATISTICS,
)
from graph_opt.remarks import warn
from graph_opt.rewriting.op_dispatch import dispatching_walker, rewrite_with
from graph_opt.statistics import Statistics


@dataclass(frozen=True)
class FuseOpsPass(ModulePass):
    """Fuse conv/matmul + bias + activation, and decomposed activations and LayerNorm, into single ops.

    Activations exporters write out become one op each: x * sigmoid(x) nn.silu,
    relu6(x + 3) / 6 nn.hard_sigmoid, x * relu6(x + 3) / 6 or x *
    hard_sigmoid(x) nn.hard_swish, x * tanh(softplus(x)) nn.mish, Gelu's erf
    and tanh forms nn.gelu (constants exact up to float32 rounding; any
    grouping). A constant per-channel add after nn.conv folds into its bias;
    relu, clip (relu6), leaky_relu, sigmoid, tanh, hard_sigmoid, hard_swish and
    silu after it make nn.fused_conv; nn.matmul with a bias add and/or one of
    those or gelu becomes nn.fused_matmul. Exported LayerNorm (ReduceMean, Sub,
    Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) becomes nn.layer_norm, and
    softmax(q @ kᵀ * scale [+ mask]) @ v as torch's exporters write it (the
    scale on the scores or split over q and kᵀ, kᵀ by any transpose or by
    dynamo's batched one) nn.attention. A chain is
    left alone when one of its inner values has a user outside it. Sibling
    matmuls of one input with constant weights (Q, K, V projections) become
    one matmul of the concatenated weights and an nn.split, when that exports
    fewer nodes.
    """

    name = "fuse-ops"

    statistics: ClassVar[Statistics] = FUSION_STATISTICS | SIBLING_STATISTICS

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not rewrite_with(op, fuse_patterns())[1]:
            warn("fuse-ops: found nothing to fuse")


def fuse_patterns() -> list[RewritePattern]:
    return [pattern() for pattern in (*FUSION_PATTERNS, *SIBLING_PATTERNS)]


def fuse_ops(module: ModuleOp) -> bool:
    """Run `fuse-ops` on `module`; whether it changed anything."""
    return dispatching_walker(fuse_patterns()).rewrite_module(module)
