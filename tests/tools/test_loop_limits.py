"""Loops stop at the iteration and time limits with a one-line error naming the
loop: ONNX's Loop (onnx's reference evaluator), scf.while and scf.for."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from graph_opt.api import parse
from graph_opt.interpreter import run_function
from graph_opt.interpreter.loop_limits import LoopTooLong, loop_limit


def forever_loop_model() -> onnx.ModelProto:
    """y = x + 1 + 1 + ... under a Loop whose condition stays true, with no trip count."""
    info = helper.make_tensor_value_info
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Add", ["x_in", "one"], ["x_out"]),
        ],
        "body",
        [
            info("i", TensorProto.INT64, []),
            info("cond_in", TensorProto.BOOL, []),
            info("x_in", TensorProto.FLOAT, [1]),
        ],
        [info("cond_out", TensorProto.BOOL, []), info("x_out", TensorProto.FLOAT, [1])],
        [helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["", "c", "x"], ["y"], body=body)],
        "forever",
        [info("x", TensorProto.FLOAT, [1])],
        [info("y", TensorProto.FLOAT, [1])],
        [helper.make_tensor("c", TensorProto.BOOL, [], [True])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_graph_opt_run_stops_an_endless_onnx_loop(tmp_path: Path):
    onnx.save(forever_loop_model(), tmp_path / "loop.onnx")
    np.save(tmp_path / "x.npy", np.zeros(1, np.float32))
    result = subprocess.run(
        ["graph-opt-run", tmp_path / "loop.onnx", "-i", tmp_path / "x.npy",
         "-o", tmp_path / "y.npz", "--max-loop-iterations", "500"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "Loop 'y' did not stop within 500 iterations" in result.stderr
    assert "--max-loop-iterations" in result.stderr
    assert not (tmp_path / "y.npz").exists()


WHILE = """
func.func @main(%x: tensor<i32>, %n: tensor<i32>) -> tensor<i32> {
  %one = nn.constant dense<1> : tensor<i32>
  %r = scf.while (%a = %x) : (tensor<i32>) -> tensor<i32> {
    %lt = nn.less %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a : tensor<i32>
  } do {
  ^bb0(%a: tensor<i32>):
    %next = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    scf.yield %next : tensor<i32>
  }
  func.return %r : tensor<i32>
}
"""


def count_to(n: int) -> list[np.ndarray]:
    return run_function(parse(WHILE), [np.int32(0), np.int32(n)])


def test_a_while_runs_up_to_the_iteration_limit():
    with loop_limit(max_iterations=10):
        assert count_to(10)[0] == 10
        with pytest.raises(LoopTooLong, match=r"scf.while 'r' did not stop within 10 "):
            count_to(11)


def test_a_while_stops_at_the_time_limit():
    with (
        loop_limit(max_seconds=0.2),
        pytest.raises(
            LoopTooLong,
            match=r"scf.while 'r' did not stop within 0.2 s .*--max-loop-seconds",
        ),
    ):
        count_to(2**31 - 1)


def test_the_onnx_loop_limit_holds_in_the_api():
    from graph_opt.api import load

    module = load(forever_loop_model())
    with loop_limit(max_iterations=50), pytest.raises(LoopTooLong, match="Loop 'y'"):
        run_function(module, [np.zeros(1, np.float32)])
