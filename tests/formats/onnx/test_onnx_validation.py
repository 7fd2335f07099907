"""Validation on import: what onnxruntime refuses to load is refused with one
line naming the node and the reason; what onnxruntime loads still imports."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.importer import import_model

X = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
Y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])


def model(nodes, inputs=(X,), outputs=(Y,), initializers=(), opset=17):
    graph = helper.make_graph(
        nodes, "g", list(inputs), list(outputs), list(initializers)
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def relu(opset=17):
    return model([helper.make_node("Relu", ["x"], ["y"])], opset=opset)


def string_initializer():
    w = helper.make_tensor("w", TensorProto.STRING, [3], [b"a", b"b", b"c"])
    return model([helper.make_node("Add", ["x", "w"], ["y"])], initializers=[w])


def reshape_swapped():
    shape = numpy_helper.from_array(np.array([3, 2], np.int64), "s")
    node = helper.make_node("Reshape", ["s", "x"], ["y"], name="r")
    return model([node], initializers=[shape])


def duplicate_inputs():
    return model([helper.make_node("Add", ["x", "x"], ["y"])], inputs=[X, X])


def batch_norm_kernel_shape():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 3])
    params = [numpy_helper.from_array(np.ones(2, np.float32), n) for n in "abcd"]
    node = helper.make_node(
        "BatchNormalization", ["x", *"abcd"], ["y"], name="bn", kernel_shape=[3, 3]
    )
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    return model([node], inputs=[x], outputs=[y], initializers=params)


def integer_division(op_type="Div", divisor=(0, 1, 0), constant_node=False):
    xi = helper.make_tensor_value_info("x", TensorProto.INT32, [3])
    yi = helper.make_tensor_value_info("y", TensorProto.INT32, [3])
    z = numpy_helper.from_array(np.array(divisor, np.int32), "z")
    nodes = [helper.make_node(op_type, ["x", "z"], ["y"], name="q")]
    if constant_node:
        nodes.insert(0, helper.make_node("Constant", [], ["z"], value=z))
        return model(nodes, inputs=[xi], outputs=[yi])
    return model(nodes, inputs=[xi], outputs=[yi], initializers=[z])


REFUSED = {
    "string_initializer": (string_initializer, r"node 'y' \(Add\): .*tensor\(string\)"),
    "reshape_swapped": (
        reshape_swapped,
        r"node 'r' \(Reshape\): shape input must be 1D",
    ),
    "no_outputs": (
        lambda: model([helper.make_node("Relu", ["x"], ["y"])], outputs=[]),
        "no outputs",
    ),
    "opset_1": (lambda: relu(1), "ai.onnx opset 1; .* opsets 7 to"),
    "opset_99": (lambda: relu(99), "ai.onnx opset 99"),
    "duplicate_inputs": (
        duplicate_inputs,
        "'x' has been used as graph input names multiple times",
    ),
    "unknown_attribute": (
        batch_norm_kernel_shape,
        r"node 'bn' \(BatchNormalization\): Unrecognized attribute: kernel_shape",
    ),
    "div_by_zero": (integer_division, r"node 'q' \(Div\): integer division by zero"),
    "mod_by_zero": (
        lambda: integer_division("Mod"),
        r"node 'q' \(Mod\): integer modulo by zero",
    ),
    "div_by_zero_constant_node": (
        lambda: integer_division(constant_node=True),
        "integer division by zero",
    ),
    "element_type_contradicted": (
        lambda: model(
            [helper.make_node("Relu", ["x"], ["y"])],
            outputs=[helper.make_tensor_value_info("y", TensorProto.INT32, [2, 3])],
        ),
        r"node 'y' \(Relu\): .*elem type.*\(FLOAT\) vs \(INT32\)",
    ),
    "undefined_input": (
        lambda: model([helper.make_node("Add", ["x", "nowhere"], ["y"])]),
        r"node 'y' \(Add\) uses undefined value 'nowhere'",
    ),
}


@pytest.mark.parametrize("make, message", REFUSED.values(), ids=REFUSED.keys())
def test_what_onnxruntime_refuses_is_refused_in_one_line(make, message):
    with pytest.raises(FrontendError, match=message) as caught:
        import_model(make())
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "make",
    [string_initializer, reshape_swapped, duplicate_inputs, batch_norm_kernel_shape],
)
def test_without_validation_they_import(make):
    import_model(make(), validate=False)


def shape_contradicted():
    """onnxruntime merges a declared shape that inference contradicts, with a warning."""
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["d"])
    h = helper.make_tensor_value_info("h", TensorProto.FLOAT, [5])
    nodes = [
        helper.make_node("Relu", ["x"], ["h"]),
        helper.make_node("Relu", ["h"], ["y"]),
    ]
    m = model(nodes, outputs=[y])
    m.graph.value_info.append(h)
    return m


def untyped_output():
    """The checker wants a type and shape on every graph output; onnxruntime does not."""
    y = helper.make_empty_tensor_value_info("y")
    return model([helper.make_node("Relu", ["x"], ["y"])], outputs=[y])


def shapeless_input():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, None)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    return model([helper.make_node("Relu", ["x"], ["y"])], inputs=[x], outputs=[y])


def unsorted_nodes():
    nodes = [
        helper.make_node("Relu", ["h"], ["y"]),
        helper.make_node("Relu", ["x"], ["h"]),
    ]
    return model(nodes)


def contrib_op():
    """Operators of other domains (onnxruntime's com.microsoft) have no onnx schema."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = numpy_helper.from_array(np.ones((2, 3, 1, 1), np.float32), "w")
    node = helper.make_node(
        "FusedConv", ["x", "w"], ["y"], domain="com.microsoft", activation="Relu"
    )
    graph = helper.make_graph([node], "g", [x], [y], [w])
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets)


def int64_overflow():
    """int64 arithmetic wraps in onnxruntime; onnx's data propagation raises."""
    a = numpy_helper.from_array(np.array([2**62, 3], np.int64), "a")
    b = numpy_helper.from_array(np.array([4, 5], np.int64), "b")
    y = helper.make_tensor_value_info("y", TensorProto.INT64, [2])
    return model([helper.make_node("Mul", ["a", "b"], ["y"])], (), [y], [a, b])


ACCEPTED = {
    "contrib_op": contrib_op,
    "shape_contradicted": shape_contradicted,
    "untyped_output": untyped_output,
    "shapeless_input": shapeless_input,
    "unsorted_nodes": unsorted_nodes,
    "nonzero_divisor": lambda: integer_division(divisor=(1, 2, 3)),
    "opset_7": lambda: relu(7),
    "newest_opset": lambda: relu(onnx.defs.onnx_opset_version()),
    "int64_overflow": int64_overflow,
}


@pytest.mark.parametrize("make", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_what_onnxruntime_loads_imports(make):
    import onnxruntime as ort

    m = make()
    ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    import_model(m)


def test_int64_overflow_folds_wrapped_as_onnxruntime_computes():
    import onnxruntime as ort

    from graph_opt.interpreter import run_function

    m = int64_overflow()
    session = ort.InferenceSession(
        m.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    (expected,) = session.run(None, {})
    module = api.run(import_model(m), "optimize")
    (folded,) = run_function(module, [])
    np.testing.assert_array_equal(folded, expected)


def test_api_load_validates_unless_told(tmp_path):
    path = tmp_path / "bad.onnx"
    onnx.save(batch_norm_kernel_shape(), path)
    with pytest.raises(FrontendError, match="Unrecognized attribute"):
        api.load(path)
    api.load(path, validate=False)
    with pytest.raises(FrontendError, match="Unrecognized attribute"):
        api.load(batch_norm_kernel_shape())
    api.load(batch_norm_kernel_shape(), validate=False)
