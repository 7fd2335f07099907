"""The `prune` pass: drop ops that do nothing at inference, then dead code."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from graph_opt.dialects.effects import DEVICE_ATTR
from graph_opt.dialects.nn.elementwise import IdentityOp, StopGradientOp
from graph_opt.dialects.nn.tensor_ops import DropoutOp
from graph_opt.passes.prune.loop_patterns import RemoveWriteOnlyLoopValues
from graph_opt.remarks import warn
from graph_opt.rewriting.op_dispatch import dispatching_walker
from graph_opt.rewriting.purity import RemoveUnusedPureOpaqueOps
from graph_opt.rewriting.value_forwarding import forward_operand


class RemoveInferenceIdentities(RewritePattern):
    """Replace identity, stop_gradient and inference dropout by their input,
    unless the op moves its input to another device (Grappler's ModelPruner
    keeps those: the copy is the op's job)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: IdentityOp | StopGradientOp | DropoutOp, rewriter: PatternRewriter
    ):
        if not crosses_devices(op):
            forward_operand(rewriter, op, op.input)


def crosses_devices(op: Operation) -> bool:
    """Whether the op is placed on a device (`tf.device`) other than its input's producer."""
    device = op.attributes.get(DEVICE_ATTR)
    if device is None:
        return False
    producer = op.operands[0].owner
    source = (
        producer.attributes.get(DEVICE_ATTR)
        if isinstance(producer, Operation)
        else None
    )
    return source is not None and source != device


def prune_patterns() -> list[RewritePattern]:
    return [
        RemoveInferenceIdentities(),
        RemoveUnusedPureOpaqueOps(),
        RemoveWriteOnlyLoopValues(),
    ]


def prune(module: ModuleOp) -> bool:
    """Run `prune` on `module`; whether it changed anything."""
    walker = dispatching_walker(prune_patterns(), walk_reverse=True)
    return walker.rewrite_module(module)


@dataclass(frozen=True)
class PrunePass(ModulePass):
    """Remove identities, stop_gradient, inference dropout, unused side-effect-free ops
    and loop-carried values no iteration reads.

    Function results and their names (`nn.name` result attributes) stay, and so
    do ops that may have side effects: nn.opaque is kept unless its ONNX
    operator is known to be pure (a TensorFlow Assert or print stays). An
    identity that moves its input to another device (`tf.device`) stays, and
    so does a returned one waiting on a side effect (`tf.control_inputs`);
    other removed ops hand their waits to their users.
    """

    name = "prune"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not prune(op):
            warn("prune: found nothing to remove")
