"""`graph-opt-run` prints sequence and optional outputs item by item, writes
them to the .npz as `S.0`, `S.1`, ..., `S.length` and `O.none`, and reads
inputs so."""

import os
import subprocess

import numpy as np
import onnx
from onnx import TensorProto, helper

from tests.interpreter.test_sequence_results import X, sequences_model


def graph_opt_run(*args, cwd, **options) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GRAPH_OPT_TRACEBACK"}
    return subprocess.run(
        ["graph-opt-run", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        **options,
    )


def write_model(tmp_path, model) -> None:
    onnx.save(model, tmp_path / "m.onnx")
    np.save(tmp_path / "x.npy", X)


def test_npz_holds_each_item_the_count_and_the_empty_optional(tmp_path):
    write_model(tmp_path, sequences_model())
    result = graph_opt_run("m.onnx", "-i", "x.npy", "-o", "out.npz", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with np.load(tmp_path / "out.npz") as out:
        assert sorted(out.files) == sorted(
            ["y", "s.0", "s.1", "s.2", "s.length", "e.length", "o.none", "p"]
        )
        for column in range(3):
            np.testing.assert_array_equal(out[f"s.{column}"], X[:, column])
        assert out["s.length"] == 3 and out["s.length"].dtype == np.int64
        assert out["e.length"] == 0
        assert out["o.none"] == np.array(True)
        np.testing.assert_array_equal(out["p"], X)


def test_printed_item_by_item(tmp_path):
    write_model(tmp_path, sequences_model())
    result = graph_opt_run("m.onnx", "-i", "x.npy", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert "s: sequence of 3" in lines
    assert "s[0]: float32 (2,)" in lines and "[0. 3.]" in lines
    assert "e: sequence of 0" in lines
    assert "o: none" in lines
    assert "p: float32 (2, 3)" in lines


def test_a_result_named_like_a_sequence_item_is_refused_in_one_line(tmp_path):
    model = sequences_model()
    model.graph.node[0].output[0] = "s.0"
    model.graph.output[0].name = "s.0"
    write_model(tmp_path, model)
    result = graph_opt_run("m.onnx", "-i", "x.npy", "-o", "out.npz", cwd=tmp_path)
    assert result.returncode == 1
    (line,) = result.stderr.decode().splitlines()
    assert "'s.0' would be written twice" in line
    assert not (tmp_path / "out.npz").exists()


def test_help_says_how_sequences_are_written():
    result = subprocess.run(["graph-opt-run", "--help"], capture_output=True)
    assert "S.length" in " ".join(result.stdout.decode().split())


def sequence_identity_model() -> onnx.ModelProto:
    """s and o (an optional tensor) in; s itself, its length, whether o holds a value."""
    tensor = helper.make_tensor_type_proto(TensorProto.FLOAT, None)
    optional = helper.make_value_info("o", helper.make_optional_type_proto(tensor))
    sequence = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)
    nodes = [
        helper.make_node("Identity", ["s"], ["t"]),
        helper.make_node("SequenceLength", ["s"], ["n"]),
        helper.make_node("OptionalHasElement", ["o"], ["has"]),
    ]
    outputs = [
        helper.make_tensor_sequence_value_info("t", TensorProto.FLOAT, None),
        helper.make_tensor_value_info("n", TensorProto.INT64, []),
        helper.make_tensor_value_info("has", TensorProto.BOOL, []),
    ]
    graph = helper.make_graph(nodes, "g", [sequence, optional], outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_inputs_are_read_in_the_form_outputs_are_written(tmp_path):
    onnx.save(sequence_identity_model(), tmp_path / "m.onnx")
    items = {"s.0": X[0], "s.1": X[:, :2], "s.length": np.int64(2)}
    np.savez(tmp_path / "in.npz", **items, **{"o.none": np.array(True)})
    result = graph_opt_run("m.onnx", "-i", "in.npz", "-o", "out.npz", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with np.load(tmp_path / "out.npz") as out:
        np.testing.assert_array_equal(out["t.0"], X[0])
        np.testing.assert_array_equal(out["t.1"], X[:, :2])
        assert out["t.length"] == 2 and out["n"] == 2 and not out["has"]


def test_a_sequence_input_missing_an_item_is_refused_in_one_line(tmp_path):
    onnx.save(sequence_identity_model(), tmp_path / "m.onnx")
    arrays = {"s.0": X[0], "s.length": np.int64(2), "o": X}
    np.savez(tmp_path / "in.npz", **arrays)
    result = graph_opt_run("m.onnx", "-i", "in.npz", cwd=tmp_path)
    assert result.returncode == 1
    (line,) = result.stderr.decode().splitlines()
    assert "s.length is 2 but there is no s.1" in line
