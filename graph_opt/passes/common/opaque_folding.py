"""Which `nn.opaque` ops constant folding may evaluate, and why it leaves the others.

An ONNX operator is folded on constant inputs when its result depends on its
inputs alone: not a random one, not one running a subgraph (If, Loop, Scan,
SequenceMap), and one whose results are tensors (a constant holds a tensor).
"""

from __future__ import annotations

from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.rewriting.purity import ONNX_DOMAINS

RANDOM_ONNX_OPS = frozenset({
    "Bernoulli", "Dropout", "Multinomial", "RandomNormal", "RandomNormalLike",
    "RandomUniform", "RandomUniformLike",
})  # fmt: skip
"""ONNX operators whose outputs are drawn at random (Dropout in training mode)."""

TENSORFLOW_EFFECTS = "tf"
"""The domain of TensorFlow's side effects kept as nn.opaque (Assert, Print)."""


def opaque_fold_refusal(op: OpaqueOp) -> str | None:
    """Why an nn.opaque on constants is not folded; None when it may be."""
    domain = op.domain.data if op.domain is not None else ""
    if domain not in ONNX_DOMAINS:
        return f"an operator of domain {domain!r}, whose effects are unknown"
    op_type = op.op_type.data
    if op_type in RANDOM_ONNX_OPS:
        return "random outputs"
    import onnx.defs  # imported when first needed, as the ONNX format does

    if not onnx.defs.has(op_type):
        return "not an ONNX operator"
    subgraph = (onnx.defs.OpSchema.AttrType.GRAPH, onnx.defs.OpSchema.AttrType.GRAPHS)
    attributes = onnx.defs.get_schema(op_type).attributes.values()
    if any(a.type in subgraph for a in attributes):
        return "runs a subgraph"
    if any(not hasattr(r.type, "element_type") for r in op.results):
        return "a result that is not a tensor (a sequence or an optional)"
    return None


def reported_refusal(op: OpaqueOp) -> bool:
    """Whether leaving the op is worth reporting: not a TensorFlow effect."""
    return op.domain is None or op.domain.data != TENSORFLOW_EFFECTS
