"""A TensorFlow Const holding one value for its whole shape (a splat) stays one
value through import and GraphDef export, for every typed field; values
TensorFlow repeats (a short list) are expanded only within the tensor limit."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from google.protobuf import text_format

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dense import to_numpy
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import import_graph_def
from graph_opt.formats.tensorflow.export.exporter import export_graph_def
from graph_opt.formats.tensorflow.schema import GraphDef
from graph_opt.interpreter.limits import TensorTooLarge, tensor_limit

CASES = [
    ("DT_FLOAT", "float_val: -0.0", np.float32(-0.0)),
    ("DT_HALF", "half_val: 15360", np.float16(1.0)),
    ("DT_BFLOAT16", "half_val: 16256", ml_dtypes.bfloat16(1.0)),
    ("DT_INT32", "int_val: -7", np.int32(-7)),
    ("DT_INT64", "int64_val: 1099511627776", np.int64(1 << 40)),
    ("DT_BOOL", "bool_val: true", np.bool_(True)),
]


def const_graph(dtype: str, values: str, dims=(3, 4)) -> GraphDef:
    shape = " ".join(f"dim {{ size: {d} }}" for d in dims)
    text = (
        f'node {{ name: "c" op: "Const" attr {{ key: "dtype" value {{ type: {dtype} }} }} '
        f'attr {{ key: "value" value {{ tensor {{ dtype: {dtype} '
        f"tensor_shape {{ {shape} }} {values} }} }} }} }}"
    )
    return text_format.Parse(text, GraphDef())


def constant_of(module) -> ConstantOp:
    return next(op for op in module.walk() if isinstance(op, ConstantOp))


@pytest.mark.parametrize("dtype, values, expected", CASES, ids=[c[0] for c in CASES])
def test_a_splat_stays_one_value_through_import_and_export(dtype, values, expected):
    constant = constant_of(import_graph_def(const_graph(dtype, values)))
    assert len(constant.value.data.data) == np.dtype(type(expected)).itemsize
    (node,) = export_graph_def(constant.get_toplevel_object()).node
    tensor = node.attr["value"].tensor
    assert not tensor.tensor_content and [d.size for d in tensor.tensor_shape.dim] == [
        3,
        4,
    ]
    again = constant_of(
        import_graph_def(export_graph_def(constant.get_toplevel_object()))
    )
    got = to_numpy(again.value)
    assert got.shape == (3, 4)
    assert got.tobytes() == np.full((3, 4), expected).tobytes()  # bits: -0.0 too


def test_equal_listed_values_are_a_splat():
    constant = constant_of(
        import_graph_def(const_graph("DT_INT32", "int_val: 5 int_val: 5", (1000,)))
    )
    assert len(constant.value.data.data) == 4
    assert (to_numpy(constant.value) == 5).all()


def test_a_short_list_is_expanded_within_the_limit_only():
    graph = const_graph("DT_INT32", "int_val: 1 int_val: 2", (1000,))
    values = to_numpy(constant_of(import_graph_def(graph)).value)
    assert values[0] == 1 and (values[1:] == 2).all()
    with (
        tensor_limit(max_bytes=3999),
        pytest.raises(
            (FrontendError, TensorTooLarge),
            match=r"node 'c': its value would create .*--max-tensor-size",
        ),
    ):
        import_graph_def(graph)
