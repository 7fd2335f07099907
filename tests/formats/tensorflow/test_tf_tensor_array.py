"""TF1 TensorArrays in a v1 while loop, and a tf.function's TensorLists in a
functional While, against TensorFlow's own outputs
(make_tensor_array_fixtures.py); what cannot be imported is refused by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from google.protobuf import text_format
from xdsl.dialects import scf

from graph_opt import api
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.schema import GraphDef
from graph_opt.interpreter import run_function

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = ["tensor_array_v1", "tensor_array_function"]


def load(name: str):
    data = np.load(FIXTURES / f"{name}.npz")
    outputs = [str(o) for o in data["outputs"]]
    module = import_graph_def(
        load_graph_def(str(FIXTURES / f"{name}.pb")), outputs=outputs
    )
    cases = []
    for k in range(2):
        expected = [data[f"out{k}_{i}"] for i in range(len(outputs))]
        cases.append(({"x": data[f"in{k}_x"]}, expected))
    return module, cases


def assert_matches(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape and a.dtype == e.dtype
        np.testing.assert_allclose(a, e, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("passes", [None, "fold-constants", "prune", "optimize"])
@pytest.mark.parametrize("name", NAMES)
def test_interpreter_matches_tensorflow(name, passes):
    module, cases = load(name)
    if passes:
        api.run(module, passes)
    for inputs, expected in cases:
        assert_matches(run_function(module, inputs), expected)


@pytest.mark.parametrize("name", NAMES)
def test_the_array_is_a_tensor_the_loop_carries(name):
    """No opaque op; the loop carries the written array at its items' shape
    (the TensorArray's element shape is unknown in the GraphDef)."""
    module, _ = load(name)
    ops = list(module.walk())
    assert not [op for op in ops if isinstance(op, OpaqueOp)]
    (loop,) = [op for op in ops if isinstance(op, scf.WhileOp)]
    shapes = [list(t.get_shape()) for t in loop.result_types if t.get_shape()]
    assert [4, 2, 3] in shapes


@pytest.mark.parametrize("name", NAMES)
def test_onnx_export_matches_tensorflow(name):
    module, cases = load(name)
    session = ort.InferenceSession(export_module(module).SerializeToString())
    for inputs, expected in cases:
        assert_matches(session.run(None, inputs), expected)


def test_dynamic_size_is_refused_by_name():
    graph = load_graph_def(str(FIXTURES / "tensor_array_dynamic_v1.pb"))
    with pytest.raises(
        FrontendError,
        match=r"unsupported attribute values: TensorArrayV3 dynamic_size=true "
        r"\(node 'TensorArray_1'\)",
    ):
        import_graph_def(graph, outputs=["result_0"])


def _graph(body: str) -> GraphDef:
    head = """
    node { name: "size" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } } }
    node { name: "ta" op: "TensorArrayV3" input: "size"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "element_shape" value { shape { unknown_rank: true } } }
      attr { key: "identical_element_shapes" value { b: true } } }
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 3 } dim { size: 2 } } } } }
    node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "shape" value { shape { dim { size: 3 } } } } }
    """
    return text_format.Parse(head + body, GraphDef())


FLOAT = 'attr { key: "dtype" value { type: DT_FLOAT } }'
T = 'attr { key: "T" value { type: DT_FLOAT } }'


def _array(shape: str, identical: str) -> str:
    return f"""
    node {{ name: "array" op: "TensorArrayV3" input: "size" {FLOAT}
      attr {{ key: "element_shape" value {{ shape {{ {shape} }} }} }}
      attr {{ key: "identical_element_shapes" value {{ b: {identical} }} }} }}
    node {{ name: "n" op: "TensorArraySizeV3" input: "array" input: "array:1" }}
    """


@pytest.mark.parametrize("shape", ["unknown_rank: true", "dim { size: -1 }"])
def test_items_of_several_shapes_are_refused_by_name(shape):
    """identical_element_shapes=false lets items differ in shape when the
    element shape is not fully known; one tensor cannot hold them."""
    graph = _graph(_array(shape, "false"))
    with pytest.raises(
        FrontendError,
        match=r"TensorArrayV3 identical_element_shapes=false \(node 'array'\)",
    ):
        import_graph_def(graph, outputs=["n"])


@pytest.mark.parametrize(
    "shape, identical", [("dim { size: 2 }", "false"), ("unknown_rank: true", "true")]
)
def test_items_of_one_shape_are_imported(shape, identical):
    graph = _graph(_array(shape, identical))
    (size,) = run_function(import_graph_def(graph, outputs=["n"]), {})
    assert size == 3


def test_read_before_any_write_is_refused():
    graph = _graph(
        f'node {{ name: "read" op: "TensorArrayReadV3" input: "ta" input: "size" input: "ta:1" {FLOAT} }}'
    )
    with pytest.raises(
        FrontendError, match="'read'.*unknown element shape read before any write"
    ):
        import_graph_def(graph, outputs=["read"])


def test_scatter_needs_constant_indices():
    graph = _graph(
        f'node {{ name: "scatter" op: "TensorArrayScatterV3" input: "ta" input: "i" input: "x" input: "ta:1" {T} }}'
    )
    with pytest.raises(
        FrontendError, match="'scatter'.*the indices must be a constant"
    ):
        import_graph_def(graph, outputs=["scatter"])


def test_scatter_split_write_outside_a_loop():
    """A scatter to items 2, 0 (item 1 stays zero), a write over item 2, then a
    split of the result into one row per item; the size is the array's."""
    graph = _graph(
        f"""
        node {{ name: "idx" op: "Const" attr {{ key: "dtype" value {{ type: DT_INT32 }} }}
          attr {{ key: "value" value {{ tensor {{ dtype: DT_INT32 tensor_shape {{ dim {{ size: 2 }} }} tensor_content: "\\002\\000\\000\\000\\000\\000\\000\\000" }} }} }} }}
        node {{ name: "two" op: "Slice" input: "x" input: "begin" input: "count" {T}
          attr {{ key: "Index" value {{ type: DT_INT32 }} }} }}
        node {{ name: "begin" op: "Const" attr {{ key: "dtype" value {{ type: DT_INT32 }} }}
          attr {{ key: "value" value {{ tensor {{ dtype: DT_INT32 tensor_shape {{ dim {{ size: 2 }} }} int_val: 0 }} }} }} }}
        node {{ name: "count" op: "Const" attr {{ key: "dtype" value {{ type: DT_INT32 }} }}
          attr {{ key: "value" value {{ tensor {{ dtype: DT_INT32 tensor_shape {{ dim {{ size: 2 }} }} tensor_content: "\\002\\000\\000\\000\\002\\000\\000\\000" }} }} }} }}
        node {{ name: "scatter" op: "TensorArrayScatterV3" input: "ta" input: "idx" input: "two" input: "ta:1" {T} }}
        node {{ name: "last" op: "Const" attr {{ key: "dtype" value {{ type: DT_INT32 }} }}
          attr {{ key: "value" value {{ tensor {{ dtype: DT_INT32 tensor_shape {{}} int_val: 2 }} }} }} }}
        node {{ name: "row" op: "Const" {FLOAT}
          attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT tensor_shape {{ dim {{ size: 2 }} }} float_val: 7 }} }} }} }}
        node {{ name: "write" op: "TensorArrayWriteV3" input: "ta" input: "last" input: "row" input: "scatter" {T} }}
        node {{ name: "all" op: "TensorArrayConcatV3" input: "ta" input: "write" {FLOAT} }}
        node {{ name: "ta2" op: "TensorArrayV3" input: "size" {FLOAT}
          attr {{ key: "element_shape" value {{ shape {{ unknown_rank: true }} }} }}
          attr {{ key: "identical_element_shapes" value {{ b: true }} }} }}
        node {{ name: "lengths" op: "Const" attr {{ key: "dtype" value {{ type: DT_INT64 }} }}
          attr {{ key: "value" value {{ tensor {{ dtype: DT_INT64 tensor_shape {{ dim {{ size: 3 }} }} int64_val: 1 }} }} }} }}
        node {{ name: "split" op: "TensorArraySplitV3" input: "ta2" input: "x" input: "lengths" input: "ta2:1" {T} }}
        node {{ name: "items" op: "TensorArrayGatherV3" input: "ta2" input: "idx" input: "split" {FLOAT} }}
        node {{ name: "size_of" op: "TensorArraySizeV3" input: "ta" input: "write" }}
        """
    )
    module = import_graph_def(graph, outputs=["all", "items", "size_of"])
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    joined, items, size = run_function(module, {"x": x, "i": np.zeros(3, np.int32)})
    np.testing.assert_array_equal(joined, [2, 3, 0, 0, 7, 7])
    np.testing.assert_array_equal(items, x[[2, 0]][:, None, :])
    assert size == 3


def _write(item_shape: str, array_shape: str) -> str:
    """A write of a zero item of `item_shape` into an array of element shape `array_shape`."""
    return f"""
    node {{ name: "array" op: "TensorArrayV3" input: "size" {FLOAT}
      attr {{ key: "element_shape" value {{ shape {{ {array_shape} }} }} }}
      attr {{ key: "identical_element_shapes" value {{ b: true }} }} }}
    node {{ name: "zero" op: "Const" attr {{ key: "dtype" value {{ type: DT_INT32 }} }}
      attr {{ key: "value" value {{ tensor {{ dtype: DT_INT32 tensor_shape {{}} int_val: 0 }} }} }} }}
    node {{ name: "item" op: "Const" {FLOAT}
      attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT tensor_shape {{ {item_shape} }} float_val: 1 }} }} }} }}
    node {{ name: "write" op: "TensorArrayWriteV3" input: "array" input: "zero" input: "item" input: "array:1" {T} }}
    """


@pytest.mark.parametrize(
    "item_shape, array_shape, shapes",
    [
        (
            "dim { size: 3 }",
            "dim { size: 2 }",
            r"\[3\] does not fit the element shape \[2\]",
        ),
        (
            "dim { size: 1 }",
            "dim { size: 2 }",
            r"\[1\] does not fit the element shape \[2\]",
        ),
        (
            "dim { size: 4 } dim { size: 3 }",
            "dim { size: -1 } dim { size: 2 }",
            r"\[4,3\] does not fit the element shape \[\?,2\]",
        ),
        ("dim { size: 2 } dim { size: 1 }", "dim { size: 2 }", r"\[2,1\] does not fit"),
    ],
)
def test_a_write_of_another_shape_is_refused(item_shape, array_shape, shapes):
    """TensorFlow raises for a write whose item does not fit a known element
    shape; the select that writes an item must not broadcast it instead."""
    graph = _graph(_write(item_shape, array_shape))
    with pytest.raises(
        FrontendError,
        match=rf"node 'write' \(TensorArrayWriteV3\): an item of shape {shapes}",
    ):
        import_graph_def(graph, outputs=["write"])


def test_a_write_fitting_a_partly_known_shape_is_imported():
    graph = _graph(
        _write("dim { size: 4 } dim { size: 2 }", "dim { size: -1 } dim { size: 2 }")
    )
    (array,) = run_function(import_graph_def(graph, outputs=["write"]), {})
    np.testing.assert_array_equal(
        array, np.eye(3, 1).reshape(3, 1, 1) * np.ones((3, 4, 2))
    )


def test_a_scatter_of_another_item_shape_is_refused():
    graph = _graph(
        f"""
        node {{ name: "array" op: "TensorArrayV3" input: "size" {FLOAT}
          attr {{ key: "element_shape" value {{ shape {{ dim {{ size: 3 }} }} }} }}
          attr {{ key: "identical_element_shapes" value {{ b: true }} }} }}
        node {{ name: "idx" op: "Const" attr {{ key: "dtype" value {{ type: DT_INT32 }} }}
          attr {{ key: "value" value {{ tensor {{ dtype: DT_INT32 tensor_shape {{ dim {{ size: 3 }} }} tensor_content: "\\000\\000\\000\\000\\001\\000\\000\\000\\002\\000\\000\\000" }} }} }} }}
        node {{ name: "scatter" op: "TensorArrayScatterV3" input: "array" input: "idx" input: "x" input: "array:1" {T} }}
        """
    )
    with pytest.raises(
        FrontendError,
        match=r"'scatter' \(TensorArrayScatterV3\): an item of shape \[2\] does not fit the element shape \[3\]",
    ):
        import_graph_def(graph, outputs=["scatter"])
