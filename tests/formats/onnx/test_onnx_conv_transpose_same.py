"""ConvTranspose with auto_pad SAME_* and a kernel smaller than the stride: the
output is the full transposed output, as onnxruntime and onnx's shape
inference say (regression: graph-opt declared in * stride)."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function


@pytest.mark.parametrize(
    "size, kernel, stride, auto_pad",
    [(3, 2, 3, "SAME_UPPER"), (5, 2, 3, "SAME_UPPER"), (5, 1, 2, "SAME_LOWER"),
     (4, 2, 4, "SAME_LOWER"), (4, 3, 2, "SAME_UPPER")],
)  # fmt: skip
def test_same_conv_transpose_matches_onnxruntime(size, kernel, stride, auto_pad):
    rng = np.random.default_rng(0)
    weights = rng.standard_normal((1, 2, kernel, kernel)).astype(np.float32)
    node = helper.make_node(
        "ConvTranspose", ["x", "w"], ["y"], auto_pad=auto_pad, strides=[stride] * 2
    )
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(weights, "w")],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = rng.standard_normal((1, 1, size, size)).astype(np.float32)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    inferred = onnx.shape_inference.infer_shapes(model).graph.output[0]
    assert [d.dim_value for d in inferred.type.tensor_type.shape.dim] == list(
        expected.shape
    )
    module = import_model(model)
    (ours,) = run_function(module, [x])
    np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-5)
    session = ort.InferenceSession(export_module(module).SerializeToString())
    np.testing.assert_allclose(
        session.run(None, {"x": x})[0], expected, rtol=1e-5, atol=1e-5
    )
