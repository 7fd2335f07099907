"""nn.opaque run by onnx's reference evaluator (graph_opt/formats/onnx/opaque_eval.py)."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function

pytest.importorskip("onnxruntime")
from graph_opt.formats.onnx.conformance import run_onnxruntime  # noqa: E402


def test_rnn_with_its_sequence_output_left_out_runs():
    """GRU's Y is unused (only Y_h is read): exported without a name, it is
    still computed, not looked up and missed."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 2, 3)).astype(np.float32)
    w = rng.standard_normal((1, 15, 3)).astype(np.float32)
    r = rng.standard_normal((1, 15, 5)).astype(np.float32)
    node = helper.make_node("GRU", ["x", "w", "r"], ["", "y_h"], hidden_size=5)
    graph = helper.make_graph(
        [node],
        "gru",
        [
            helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape)
            for n, a in (("x", x), ("w", w), ("r", r))
        ],
        [helper.make_tensor_value_info("y_h", TensorProto.FLOAT, [1, 2, 5])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    (ours,) = run_function(import_model(model), [x, w, r])
    np.testing.assert_allclose(ours, run_onnxruntime(model, [x, w, r])[0], rtol=1e-5)
