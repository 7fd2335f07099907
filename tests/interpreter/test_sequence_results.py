"""`run_function` gives a sequence result as a list of arrays and an optional
result as None or its value, as onnxruntime does, never one stacked array."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def sequences_model() -> onnx.ModelProto:
    """y = x; s = x split along axis 1; e an empty sequence; o an optional
    holding nothing; p an optional holding x."""
    tensor = helper.make_tensor_type_proto(TensorProto.FLOAT, None)
    nodes = [
        helper.make_node("Identity", ["x"], ["y"]),
        helper.make_node("SplitToSequence", ["x"], ["s"], axis=1, keepdims=0),
        helper.make_node("SequenceEmpty", [], ["e"], dtype=TensorProto.FLOAT),
        helper.make_node("Optional", [], ["o"], type=tensor),
        helper.make_node("Optional", ["x"], ["p"]),
    ]
    optional = helper.make_optional_type_proto(tensor)
    graph = helper.make_graph(
        nodes,
        "sequences",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, X.shape)],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, X.shape),
            helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None),
            helper.make_tensor_sequence_value_info("e", TensorProto.FLOAT, None),
            helper.make_value_info("o", optional),
            helper.make_value_info("p", optional),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_sequences_come_back_as_lists_and_optionals_as_none_or_value():
    y, s, e, o, p = run_function(import_model(sequences_model()), [X])
    np.testing.assert_array_equal(y, X)
    assert isinstance(s, list) and len(s) == 3
    for column, item in enumerate(s):
        assert isinstance(item, np.ndarray)
        np.testing.assert_array_equal(item, X[:, column])
    assert e == []
    assert o is None
    assert isinstance(p, np.ndarray)
    np.testing.assert_array_equal(p, X)


def assert_same_structure(expected, actual):
    if expected is None or isinstance(expected, list):
        assert type(actual) is type(expected)
        for e, a in zip(expected or [], actual or [], strict=True):
            assert_same_structure(e, a)
        return
    assert isinstance(actual, np.ndarray) and actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual, expected)


def test_results_equal_onnxruntime():
    pytest.importorskip("onnxruntime")
    from graph_opt.formats.onnx.conformance import run_onnxruntime

    model = sequences_model()
    ours = run_function(import_model(model), [X])
    assert_same_structure(run_onnxruntime(model, [X]), ours)
