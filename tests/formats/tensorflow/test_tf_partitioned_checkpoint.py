"""Partitioned variables (`name/part_N`) frozen with the checkpoint
tf.compat.v1.train.Saver wrote for them (make_partitioned_checkpoint_fixtures.py):
each part is read from the slice the checkpoint stores it in (mapped when
large), or assembled from the slices it overlaps, as TensorFlow's checkpoint
reader does."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from make_fixtures import FIXTURES
from test_tf_cli import assert_one_line_error, graph_opt

from graph_opt.dialects.tf_state import VariableOp
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.checkpoint_freeze import freeze_with_checkpoint
from graph_opt.formats.tensorflow.tensor_bundle import TensorBundle, read_table
from graph_opt.formats.tensorflow.tensor_slices import parse_slice_spec, slice_key
from graph_opt.interpreter import run_function
from graph_opt.weights import WeightBytes

DIRECTORY = FIXTURES / "partitioned_checkpoint"
GRAPH = DIRECTORY / "graph.pbtxt"
PREFIX = DIRECTORY / "model.ckpt"
DATA = np.load(DIRECTORY / "graph.npz")
TABLE_PART_0 = 'string_val: "130 3 0,65:0,3"'


def copied(tmp_path):
    for path in DIRECTORY.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path / "graph.pbtxt", tmp_path / "model.ckpt"


def test_frozen_partitioned_graph_matches_tensorflow():
    graph = load_graph_def(str(GRAPH))
    module = import_graph_def(graph, outputs=["result"], checkpoint=PREFIX)
    assert not [op for op in module.walk() if isinstance(op, VariableOp)]
    for k in range(2):
        inputs = {"ids": DATA[f"in{k}_ids"], "x": DATA[f"in{k}_x"]}
        (actual,) = run_function(module, inputs)
        np.testing.assert_allclose(actual, DATA[f"out{k}_0"], rtol=1e-5, atol=1e-5)


def test_each_part_is_its_stored_slice_large_ones_mapped():
    mapped: dict = {}
    frozen = freeze_with_checkpoint(load_graph_def(str(GRAPH)), PREFIX, mapped)
    assert sorted(mapped) == ["kernel/part_0", "kernel/part_1"]
    assert all(type(data) is WeightBytes for data in mapped.values())
    consts = {n.name: n.attr["value"].tensor for n in frozen.node if n.op == "Const"}
    parts = [
        np.frombuffer(consts[f"table/part_{i}"].tensor_content, np.float32)
        for i in range(2)
    ]
    np.testing.assert_array_equal(np.concatenate(parts).reshape(130, 3), DATA["table"])


@pytest.mark.parametrize("spec, rows", [("60,65:0,3", (60, 125)), ("-:1,2", None)])
def test_a_part_other_than_a_stored_slice_is_assembled(tmp_path, spec, rows):
    """A Saver restoring `table/part_0` as another part than the one saved
    (rows 60-124: across both stored slices; or columns 1-2 of all rows)
    gets it assembled from the slices it overlaps."""
    graph, prefix = copied(tmp_path)
    text = graph.read_text()
    assert text.count(TABLE_PART_0) == 2  # (the save's and the restore's)
    restore_at = text.index("save/RestoreV2/shape_and_slices")
    graph.write_text(
        text[:restore_at]
        + text[restore_at:].replace(TABLE_PART_0, f'string_val: "130 3 {spec}"', 1)
    )
    graph_def = load_graph_def(str(graph))
    shape = [65, 3] if rows else [130, 2]
    (part,) = [n for n in graph_def.node if n.name == "table/part_0"]
    for dim, size in zip(part.attr["shape"].shape.dim, shape):
        dim.size = size
    frozen = freeze_with_checkpoint(graph_def, prefix)
    (const,) = [n for n in frozen.node if n.name == "table/part_0"]
    value = np.frombuffer(const.attr["value"].tensor.tensor_content, np.float32)
    expected = DATA["table"][slice(*rows)] if rows else DATA["table"][:, 1:]
    np.testing.assert_array_equal(value.reshape(shape), expected)


def test_a_part_past_its_tensor_is_refused_in_one_line(tmp_path):
    graph, prefix = copied(tmp_path)
    graph.write_text(
        graph.read_text().replace(TABLE_PART_0, 'string_val: "130 3 100,65:0,3"')
    )
    result = graph_opt(str(graph), f"--input-checkpoint={prefix}")
    assert_one_line_error(
        result, "variable 'table/part_0': '130 3 100,65:0,3' reaches past its shape"
    )


def test_command_line(tmp_path):
    out = tmp_path / "frozen.pb"
    result = graph_opt(
        str(GRAPH),
        f"--input-checkpoint={PREFIX}",
        "--outputs",
        "result",
        "-o",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    assert b"kernel/part_1" in out.read_bytes()


def test_a_part_of_another_shape_is_refused(tmp_path):
    graph, prefix = copied(tmp_path)
    graph.write_text(
        graph.read_text().replace(TABLE_PART_0, 'string_val: "130 3 0,64:0,3"')
    )
    result = graph_opt(str(graph), f"--input-checkpoint={prefix}")
    assert_one_line_error(
        result,
        "variable 'table/part_0' is DT_FLOAT [65, 3], its checkpoint value "
        "'table' (part 130 3 0,64:0,3) DT_FLOAT [130, 3]",
    )


def test_slice_keys_are_the_ones_tensorflow_wrote():
    """OrderedCode keys, one- and two-byte numbers (65, 1100) included."""
    keys = {key for key, _ in read_table((DIRECTORY / "model.ckpt.index").read_bytes())}
    bundle = TensorBundle(PREFIX)
    assert set(bundle.slices) == keys - {b"", b"table", b"kernel"}
    for name, spec in [
        ("table", "130 3 0,65:0,3"), ("table", "130 3 65,65:0,3"),
        ("kernel", "2 1100 0,1:0,1100"), ("kernel", "2 1100 1,1:0,1100"),
    ]:  # fmt: skip
        _, extents = parse_slice_spec(spec)
        assert slice_key(name, extents) in keys


@pytest.mark.parametrize(
    "name, extents, key",
    [
        ("a\x00b\xff", [(0, -1)], b"\x00a\x00\xffb\xc3\xbf\x00\x01\x01\x01\x80\x7f"),
        ("t", [(64, 8192)], b"\x00t\x00\x01\x01\x01\xc0\x40\xe0\x20\x00"),
    ],
)
def test_slice_keys_escape_names_and_size_numbers(name, extents, key):
    """Bytes 00 and ff of a name escaped (a UTF-8 name here), -1 for a whole
    dimension, 64 and 8192 in two and three bytes (OrderedCode's tests)."""
    assert slice_key(name, extents) == key


@pytest.mark.parametrize("spec", ["3 0,2:0,1", "3 2 0,2", "3 0,4", "3 1,0", "x 0,1"])
def test_malformed_specs_are_refused(spec):
    with pytest.raises(ValueError, match=spec):
        parse_slice_spec(spec)
