"""Comparisons and logic that compute control-flow predicates.

The nn dialect has no comparison ops, so these stay ONNX operators
(`nn.opaque` of the default domain), which the interpreter, the passes and
the ONNX export all understand.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType, StringAttr, TensorType

from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.shapes import broadcast_shapes, ranked
from graph_opt.frontend.tensorflow.op_table import importer

ONNX_PREDICATES = {
    "Less": "Less",
    "LessEqual": "LessOrEqual",
    "Greater": "Greater",
    "GreaterEqual": "GreaterOrEqual",
    "Equal": "Equal",
    "LogicalAnd": "And",
    "LogicalOr": "Or",
    "LogicalNot": "Not",
}


def _onnx_op(b, op_type: str, inputs):
    shapes = [ranked(v) for v in inputs]
    if any(s is None for s in shapes):
        result = b.unranked([])
        result = type(result)(IntegerType(1))
    else:
        shape: tuple[int, ...] = ()
        for s in shapes:
            shape = broadcast_shapes(shape, s.get_shape())
        result = TensorType(IntegerType(1), shape)
    op = OpaqueOp.build(
        operands=[list(inputs)],
        result_types=[[result]],
        properties={"op_type": StringAttr(op_type), "domain": StringAttr("")},
    )
    return b.builder.insert(op)


@importer(*ONNX_PREDICATES)
def import_predicate(b, node, inputs):
    return _onnx_op(b, ONNX_PREDICATES[node.op], inputs)


@importer("NotEqual")
def import_not_equal(b, node, inputs):
    equal = _onnx_op(b, "Equal", inputs).results[0]
    return _onnx_op(b, "Not", [equal])
