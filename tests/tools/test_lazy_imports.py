"""What `graph-opt -p optimize -t onnx` imports: not onnx's reference
evaluator (~200 modules, ~10 MB), which only an nn.opaque being folded or run
needs; it is imported then."""

import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

from graph_opt import api
from graph_opt.interpreter.runner import run_function
from graph_opt.testing.model_zoo import conv_chain

OPTIMIZE_THEN_LIST_ONNX = """
import sys
from graph_opt.tools.launch import graph_opt
sys.argv = ["graph-opt", "-p", "optimize", "-t", "onnx", "-o", sys.argv[2], sys.argv[1]]
try:
    graph_opt()
except SystemExit as done:
    assert not done.code, done.code
print("onnx.reference" in sys.modules)
"""


def test_optimizing_a_chain_leaves_onnx_reference_unimported(tmp_path):
    src, dst = tmp_path / "chain.onnx", tmp_path / "out.onnx"
    onnx.save(conv_chain(30), src)
    done = subprocess.run(
        [sys.executable, "-c", OPTIMIZE_THEN_LIST_ONNX, str(src), str(dst)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    assert done.stdout.split()[-1] == "False"
    assert len(onnx.load(dst).graph.node) < len(conv_chain(30).graph.node)


def test_an_opaque_op_still_runs_on_onnx_reference():
    """Hardmax has no nn op: the interpreter runs its nn.opaque through onnx's
    reference evaluator, imported when first needed."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])
    graph = helper.make_graph(
        [helper.make_node("Hardmax", ["x"], ["y"])], "g", [x], [y]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    module = api.load(model)
    assert [op.name for op in module.walk()].count("nn.opaque") == 1
    (out,) = run_function(module, [np.array([[1, 3], [4, 2]], np.float32)])
    np.testing.assert_array_equal(out, [[0, 1], [1, 0]])
