"""An ONNX Resize whose sizes the graph computes (as segformer's and yolos'
exports do): opaque at import, an nn.resize after fold-constants, the same
numbers before and after, and on IREE once lowered to TOSA."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from graph_opt import api
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.resize import ResizeOp
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function

sys.path.insert(0, str(Path(__file__).parent))
from iree_harness import CompiledGraphs  # noqa: E402


def resize_model(mode: str) -> onnx.ModelProto:
    """Resize x to twice its spatial size, the sizes computed from Shape(x)."""
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 2, 5, 4])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)
    factors = helper.make_tensor("factors", onnx.TensorProto.INT64, [4], [1, 1, 2, 2])
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Mul", ["shape", "factors"], ["sizes"]),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode=mode),
    ]
    graph = helper.make_graph(nodes, "resize", [x], [y], [factors])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_folded_sizes_make_an_nn_resize_that_runs_on_iree(mode):
    module = import_model(resize_model(mode))
    assert any(isinstance(op, OpaqueOp) for op in module.walk())
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 4)).astype(np.float32)
    (before,) = run_function(module, [x])
    api.run(module, "fold-constants")
    assert not any(isinstance(op, OpaqueOp) for op in module.walk())
    assert any(isinstance(op, ResizeOp) for op in module.walk())
    (after,) = run_function(module, [x])
    np.testing.assert_array_equal(after, before)
    (on_iree,) = CompiledGraphs(module).run("main", [x])
    np.testing.assert_allclose(on_iree, before, rtol=1e-4, atol=1e-5)
