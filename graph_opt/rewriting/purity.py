"""Which ops may be removed or evaluated at compile time: Pure nn ops and known-pure ONNX operators."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import Pure

from graph_opt.dialects.nn.opaque import OpaqueOp

PURE_ONNX_OP_TYPES = frozenset({
    "Abs", "Add", "And", "Cast", "Ceil", "Concat", "Constant", "ConstantOfShape", "Div",
    "Equal", "Exp", "Expand", "Flatten", "Floor", "Gather", "GatherElements",
    "Greater", "Identity",
    "Less", "Log", "MatMul", "Max", "Min", "Mul", "Neg", "Not", "Or", "Pow",
    "Range", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum",
    "Reshape", "Resize", "Shape", "Size", "Slice", "Sqrt", "Squeeze", "Sub", "Tile",
    "Transpose", "Unsqueeze", "Where",
})  # fmt: skip
"""ONNX operators without side effects or randomness (e.g. no RandomNormal, no Loop)."""

ONNX_DOMAINS = ("", "ai.onnx")


def is_pure_opaque(op: Operation) -> bool:
    """An nn.opaque holding a standard ONNX operator known to be side-effect free."""
    if not isinstance(op, OpaqueOp) or op.serialized_attrs is not None:
        return False
    domain = op.domain.data if op.domain is not None else ""
    return domain in ONNX_DOMAINS and op.op_type.data in PURE_ONNX_OP_TYPES


def is_pure(op: Operation) -> bool:
    return op.has_trait(Pure) or is_pure_opaque(op)


class RemoveUnusedPureOpaqueOps(RewritePattern):
    """Erase an unused nn.opaque of a known-pure ONNX operator.

    Other unused side-effect-free ops are trivially dead: OpTypeDispatch
    (graph_opt.rewriting.op_dispatch) erases them before trying any pattern.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: OpaqueOp, rewriter: PatternRewriter):
        if op.parent is None or any(result.uses for result in op.results):
            return
        if is_pure_opaque(op):
            rewriter.erase(op)
