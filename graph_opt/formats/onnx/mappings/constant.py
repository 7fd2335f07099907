"""ONNX Constant nodes become nn.constant (exported back as initializers)."""

from __future__ import annotations

import numpy as np
import onnx

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.formats.onnx.op_table import importer
from graph_opt.formats.onnx.types import dense_from_tensor

_LISTS = {
    "value_float": lambda a: np.array(a.f, np.float32),
    "value_floats": lambda a: np.array(a.floats, np.float32),
    "value_int": lambda a: np.array(a.i, np.int64),
    "value_ints": lambda a: np.array(a.ints, np.int64),
}


@importer("Constant")
def import_constant(b, node, inputs):
    """Dense values only: strings and sparse tensors stay opaque ONNX Constants."""
    if len(node.attribute) != 1:
        return None
    attr = node.attribute[0]
    if attr.name == "value" and attr.t.data_type != onnx.TensorProto.STRING:
        return b.insert(ConstantOp(dense_from_tensor(attr.t)))
    if attr.name in _LISTS:
        return b.insert(ConstantOp.from_array(_LISTS[attr.name](attr)))
    return None
