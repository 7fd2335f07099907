"""A TF1 GraphDef frozen with the checkpoint tf.compat.v1.train.Saver wrote for
it (make_checkpoint_fixtures.py): TensorFlow's outputs, through the API and
`graph-opt --input-checkpoint`; a damaged, escaping or mismatched checkpoint
is refused in one line."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
from google.protobuf import text_format
from make_fixtures import FIXTURES
from test_tf_cli import assert_one_line_error, graph_opt, graph_opt_in_process

from graph_opt import api
from graph_opt.dialects.tf_state import VariableOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import load_graph_def
from graph_opt.formats.tensorflow.checkpoint_freeze import freeze_with_checkpoint
from graph_opt.interpreter import run_function

DIRECTORY = FIXTURES / "checkpoint"
GRAPH = DIRECTORY / "graph.pbtxt"
PREFIX = DIRECTORY / "model.ckpt"
SHARD = "model.ckpt.data-00000-of-00001"


def tensorflow_cases():
    data = np.load(DIRECTORY / "graph.npz")
    return [({"x": data[f"in{k}_x"]}, data[f"out{k}_0"]) for k in range(2)]


def copied(tmp_path):
    for path in DIRECTORY.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path / "graph.pbtxt", tmp_path / "model.ckpt"


def test_frozen_graph_matches_tensorflow():
    module = api.load(GRAPH, checkpoint=PREFIX)
    assert not [op for op in module.walk() if isinstance(op, VariableOp)]
    for inputs, expected in tensorflow_cases():
        (actual,) = run_function(module, inputs)
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)


def test_initializers_and_saver_ops_are_dropped():
    """Only the computation of `result` is left (variables as constants): the
    initializers, the Saver's save and restore ops and what fed them go."""
    frozen = freeze_with_checkpoint(load_graph_def(str(GRAPH)), PREFIX)
    ops = {node.name: node.op for node in frozen.node}
    assert ops == {
        "x": "Placeholder", "weights": "Const", "weights/read": "Identity",
        "bias": "Const", "matmul": "MatMul", "add/ReadVariableOp": "ReadVariableOp",
        "add": "AddV2", "Relu": "Relu", "result": "Identity",
    }  # fmt: skip


def test_command_line(capsys):
    result = graph_opt_in_process(
        capsys, str(GRAPH), f"--input-checkpoint={PREFIX}", "-t", "mlir"
    )
    assert result.returncode == 0, result.stderr
    assert "tf_state" not in result.stdout and "nn.matmul" in result.stdout


def test_restore_op_names_the_key(tmp_path):
    """The Saver's RestoreV2 names each variable's key: a key the checkpoint
    lacks is an error naming the variable and the key."""
    graph, prefix = copied(tmp_path)
    graph.write_text(
        graph.read_text().replace('string_val: "weights"', 'string_val: "w0"')
    )
    with pytest.raises(
        FrontendError, match="no value for variable 'weights' \\(key 'w0'\\)"
    ):
        api.load(graph, checkpoint=prefix)


def test_shape_mismatch_is_refused(tmp_path):
    graph, prefix = copied(tmp_path)
    graph_def = load_graph_def(str(graph))
    (weights,) = [n for n in graph_def.node if n.name == "weights"]
    weights.attr["shape"].shape.dim[0].size = 5
    graph.write_text(text_format.MessageToString(graph_def))
    with pytest.raises(
        FrontendError,
        match=r"'weights' is DT_FLOAT \[5, 4\], its checkpoint value 'weights' DT_FLOAT \[3, 4\]",
    ):
        api.load(graph, checkpoint=prefix)


def test_damaged_checkpoint_is_refused_in_one_line(tmp_path):
    graph, prefix = copied(tmp_path)
    data = bytearray((tmp_path / SHARD).read_bytes())
    data[5] ^= 0x40
    (tmp_path / SHARD).write_bytes(bytes(data))
    result = graph_opt(str(graph), f"--input-checkpoint={prefix}")
    assert_one_line_error(result, "the checksum of tensor", "the checkpoint is damaged")


def test_checkpoint_leading_outside_its_directory_is_refused(tmp_path):
    (tmp_path / "outside").mkdir()
    graph, _ = copied(tmp_path / "outside")
    inside = tmp_path / "inside"
    inside.mkdir()
    for suffix in (".index", ".data-00000-of-00001"):
        os.symlink(
            tmp_path / "outside" / f"model.ckpt{suffix}", inside / f"model.ckpt{suffix}"
        )
    result = graph_opt(str(graph), f"--input-checkpoint={inside / 'model.ckpt'}")
    assert_one_line_error(result, "leads outside the model's directory")


def test_missing_checkpoint_is_one_line(tmp_path):
    result = graph_opt(str(GRAPH), f"--input-checkpoint={tmp_path / 'none.ckpt'}")
    assert_one_line_error(result, "cannot read the checkpoint index")


def test_checkpoint_for_another_format_is_refused(tmp_path):
    path = tmp_path / "m.mlir"
    path.write_text("builtin.module {}")
    result = graph_opt(str(path), f"--input-checkpoint={PREFIX}")
    assert_one_line_error(result, "--input-checkpoint applies to a TensorFlow GraphDef")
    with pytest.raises(
        FrontendError, match="a checkpoint applies to a TensorFlow GraphDef"
    ):
        api.load(path, checkpoint=PREFIX)
