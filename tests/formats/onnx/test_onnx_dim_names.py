"""Symbolic dim names (ONNX dim_param) kept from import through passes to export."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from graph_opt import api
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model


def conv_model():
    weights = helper.make_tensor(
        "w", TensorProto.FLOAT, [4, 3, 1, 1], np.ones(12, np.float32)
    )
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Relu", ["c"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "H", "W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, "H", "W"])],
        [weights],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def dims(value_info) -> list:
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


@pytest.mark.parametrize(
    "pipeline",
    ["prune", "fold-constants", "fold-bn", "fuse-ops", "refine-shapes", "optimize",
     "convert-layout{target=NHWC}"],
)  # fmt: skip
def test_names_survive_each_pass_and_the_export(pipeline: str):
    module = import_model(conv_model())
    api.run(api.parse(api.to_mlir(module)), pipeline)  # and through MLIR text
    api.run(module, pipeline)
    model = export_module(module)
    assert dims(model.graph.input[0]) == ["batch", 3, "H", "W"]
    assert dims(model.graph.output[0]) == ["batch", 4, "H", "W"]


def test_a_signature_moved_to_nhwc_moves_its_names():
    module = import_model(conv_model())
    api.run(module, "convert-layout{target=NHWC keep-io-layout=false}")
    model = export_module(module)
    assert dims(model.graph.input[0]) == ["batch", "H", "W", 3]
    assert dims(model.graph.output[0]) == ["batch", "H", "W", 4]
