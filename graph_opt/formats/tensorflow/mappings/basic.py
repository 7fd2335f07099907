"""Constants and the ops that only forward values: Identity, IdentityN, StopGradient,
PlaceholderWithDefault."""

from __future__ import annotations

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.elementwise import IdentityOp, StopGradientOp
from graph_opt.formats.tensorflow.op_table import importer, register_simple
from graph_opt.formats.tensorflow.tensors import (
    MAPPED_ATTR,
    dense_from_mapped,
    dense_from_tensor,
    shape_dims,
)

register_simple("Identity", IdentityOp)
register_simple("StopGradient", StopGradientOp)
# unfed, its default value (fed, a placeholder: see `placeholders`)
register_simple("PlaceholderWithDefault", IdentityOp)


@importer("Const")
def import_const(b, node, inputs):
    if "value" not in node.attr:
        b.decline("attribute 'value' is missing")
    if MAPPED_ATTR in node.attr:
        tensor = node.attr["value"].tensor
        if node.name not in b.mapped:
            raise b.error("its mapped weight is not in this graph")
        value = dense_from_mapped(
            tensor.dtype, shape_dims(tensor.tensor_shape), b.mapped[node.name]
        )
        return b.builder.insert(ConstantOp(value))
    value: DenseIntOrFPElementsAttr = dense_from_tensor(
        node.attr["value"].tensor, f"node '{node.name}'"
    )
    return b.builder.insert(ConstantOp(value))


@importer("IdentityN")
def import_identity_n(b, node, inputs):
    return [b.create(IdentityOp, [x]).results[0] for x in inputs]
