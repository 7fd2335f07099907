"""A 2-D MatMul with a bias add, fused by optimize into nn.fused_matmul, is
exported as one Gemm (then its activation); a 3-D one stays MatMul + Add."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model

ort = pytest.importorskip("onnxruntime")


def matmul_bias(x_shape: list[int], activation: str | None):
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.standard_normal((6, 4)).astype(np.float32), "w"),
        numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["y" if activation is None else "a"]),
    ]
    if activation:
        nodes.append(helper.make_node(activation, ["a"], ["y"]))
    graph = helper.make_graph(
        nodes, "gemm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [*x_shape[:-1], 4])],
        inits,
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(
    ("x_shape", "activation", "expected"),
    [
        ([3, 6], None, ["Gemm"]),
        ([3, 6], "Relu", ["Gemm", "Relu"]),
        ([2, 3, 6], None, ["MatMul", "Add"]),
    ],
)
def test_fused_matmul_export(x_shape, activation, expected):
    model = matmul_bias(x_shape, activation)
    module = api.run(import_model(model), "optimize")
    exported = export_module(module)
    assert [n.op_type for n in exported.graph.node] == expected
    x = np.random.default_rng(1).standard_normal(x_shape).astype(np.float32)

    def run(m):
        session = ort.InferenceSession(
            m.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        return session.run(None, {"x": x})[0]

    np.testing.assert_allclose(run(exported), run(model), rtol=1e-5, atol=1e-6)
