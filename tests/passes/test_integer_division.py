"""Integer Div and Mod by zero: the interpreter refuses them (onnxruntime refuses
such a model), so fold-constants leaves them and graph-opt-run says why."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.interpreter import run_function
from graph_opt.tools.run_main import main as run_main


def division(op_type: str, divisor, dividend=(7, -7, 7), **attrs) -> onnx.ModelProto:
    a = numpy_helper.from_array(np.array(dividend, np.int64), "a")
    z = numpy_helper.from_array(np.array(divisor, np.int64), "z")
    x = helper.make_tensor_value_info("x", TensorProto.INT64, [3])
    y = helper.make_tensor_value_info("y", TensorProto.INT64, [3])
    nodes = [
        helper.make_node(op_type, ["a", "z"], ["q"], **attrs),
        helper.make_node("Add", ["x", "q"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y], [a, z])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_integer_division_truncates_toward_zero_exactly():
    big = 2**62 + 1  # not exact in float64: a / b would round it
    module = api.load(division("Div", [2, 2, -2], dividend=[big, -7, 7]))
    (y,) = run_function(module, [np.zeros(3, np.int64)])
    assert y.tolist() == [big // 2, -3, -3]


@pytest.mark.parametrize("op_type", ["Div", "Mod"])
def test_division_by_zero_raises_and_is_not_folded(op_type):
    module = api.load(division(op_type, [1, 0, 1]), validate=False)
    with pytest.raises(ZeroDivisionError, match="integer division by zero"):
        run_function(module, [np.zeros(3, np.int64)])
    api.run(module, "fold-constants")
    assert f"nn.{op_type.lower()}" in api.to_mlir(module)


def test_graph_opt_run_reports_it_in_one_line(tmp_path, capsys):
    path = tmp_path / "m.onnx"
    onnx.save(division("Div", [1, 0, 1]), path)
    np.save(tmp_path / "x.npy", np.zeros(3, np.int64))
    out = tmp_path / "y.npz"
    assert run_main([str(path), "-i", str(tmp_path / "x.npy"), "-o", str(out)]) == 1
    assert "integer division by zero" in capsys.readouterr().err
    args = [str(path), "--no-validate", "-i", str(tmp_path / "x.npy"), "-o", str(out)]
    assert run_main(args) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith("nn.div: integer division by zero")
    assert not out.exists()
