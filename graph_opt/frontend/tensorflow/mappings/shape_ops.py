"""Shape ops: Reshape."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import i64

from graph_opt.dialects.nn.base import i64_attr
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.frontend.tensorflow.op_table import importer


def int64_input(b, value, what: str):
    """An integer operand as i64, which nn ops take for shapes and axes."""
    array = b.constant_value(value)
    if array is not None:
        return b.constant(np.asarray(array, dtype=np.int64))
    if getattr(value.type, "element_type", None) != i64:
        b.decline(f"{what} must be a constant or an int64 tensor")
    return value


@importer("Reshape")
def import_reshape(b, node, inputs):
    """TensorFlow's 0 in a shape is an empty dim, never a copy: allowzero."""
    x, shape = inputs
    target = int64_input(b, shape, "the shape")
    return b.create(ReshapeOp, [x, target], {"allowzero": i64_attr(1)})
