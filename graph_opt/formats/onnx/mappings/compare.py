"""ONNX mappings of comparisons, logical ops, Where (nn.select) and NonZero."""

from __future__ import annotations

from graph_opt.dialects.nn import compare as c
from graph_opt.formats.onnx.op_table import exporter, importer, register_simple

for _op_type, _op_class in [
    ("Not", c.LogicalNotOp), ("And", c.LogicalAndOp), ("Or", c.LogicalOrOp),
    ("Xor", c.LogicalXorOp), ("Where", c.SelectOp), ("Equal", c.EqualOp),
    ("Greater", c.GreaterOp), ("Less", c.LessOp), ("NonZero", c.NonZeroOp),
]:  # fmt: skip
    register_simple(_op_type, _op_class)

OR_EQUAL_OPSET = 12
"""The opset of GreaterOrEqual and LessOrEqual; before it, Not of the opposite strict test."""

NEGATED = {
    c.NotEqualOp: "Equal",
    c.GreaterEqualOp: "Less",
    c.LessEqualOp: "Greater",
}
"""Comparisons exported as Not of another (NaN operands then compare true)."""


@importer("GreaterOrEqual", "LessOrEqual")
def import_or_equal(b, node, inputs):
    if None in inputs or len(node.attribute):
        return None
    op_class = c.GreaterEqualOp if node.op_type == "GreaterOrEqual" else c.LessEqualOp
    return b.create(op_class, inputs, {})


@exporter(*NEGATED)
def export_negated(e, op):
    if e.opset >= OR_EQUAL_OPSET and not isinstance(op, c.NotEqualOp):
        op_type = (
            "GreaterOrEqual" if isinstance(op, c.GreaterEqualOp) else "LessOrEqual"
        )
        e.node(op_type, list(op.operands), [op.output])
        return
    opposite = e.fresh(f"{e.name(op.lhs)}_{NEGATED[type(op)].lower()}")
    e.node(NEGATED[type(op)], list(op.operands), [opposite])
    e.node("Not", [opposite], [op.output])
