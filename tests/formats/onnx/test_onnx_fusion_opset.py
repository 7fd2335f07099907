"""A fusion the model's opset cannot express exports in its decomposed form:
a decomposed LayerNormalization of an opset-13 model fused by optimize
(regression: the export failed, "LayerNormalization needs opset 17")."""

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model


def decomposed_layer_norm(opset: int):
    rng = np.random.default_rng(0)
    consts = {
        "two": np.array(2.0, np.float32),
        "eps": np.array(1e-5, np.float32),
        "gamma": rng.standard_normal(8).astype(np.float32),
        "beta": rng.standard_normal(8).astype(np.float32),
    }
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["mean"], axes=[-1]),
        helper.make_node("Sub", ["x", "mean"], ["d"]),
        helper.make_node("Pow", ["d", "two"], ["p"]),
        helper.make_node("ReduceMean", ["p"], ["var"], axes=[-1]),
        helper.make_node("Add", ["var", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["std"]),
        helper.make_node("Div", ["d", "std"], ["n"]),
        helper.make_node("Mul", ["n", "gamma"], ["m"]),
        helper.make_node("Add", ["m", "beta"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "ln",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5, 8])],
        [numpy_helper.from_array(v, k) for k, v in consts.items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_fused_layer_norm_exports_at_opset_13_and_matches():
    model = decomposed_layer_norm(13)
    x = np.random.default_rng(1).standard_normal((2, 5, 8)).astype(np.float32)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    module = api.run(import_model(model), "optimize")
    assert "nn.layer_norm" in api.to_mlir(module)
    exported = export_module(module)
    assert "LayerNormalization" not in {n.op_type for n in exported.graph.node}
    got = ort.InferenceSession(exported.SerializeToString()).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_fused_layer_norm_at_opset_17_is_one_node():
    module = api.run(import_model(decomposed_layer_norm(17)), "optimize")
    ops = [n.op_type for n in export_module(module).graph.node]
    assert ops == ["LayerNormalization"]
