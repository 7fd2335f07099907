"""A disk filling up while `graph-opt -o m.onnx --external-data` writes: the
model and its data file keep their previous content (a matching pair), no
temporary file stays, and the error is one line with exit status 1."""

import errno
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt.formats import direct_write
from graph_opt.formats.onnx import exporter
from graph_opt.tools.graph_opt_main import main

FULL_AFTER = 10_000
"""Bytes of the 64 KiB weight the data file gets before the disk is full."""
MODEL_FULL_AFTER = 50
"""Bytes the model (its weight outside) gets before the disk is full."""


def model_of(weight: float) -> onnx.ModelProto:
    """y = x + W, W a 64 KiB initializer of `weight`s."""
    w = numpy_helper.from_array(np.full(16384, weight, np.float32), "W")
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "W"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16384])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16384])],
        [w],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def conv_bn_model() -> onnx.ModelProto:
    """A Conv of a 2.25 MiB filter (past direct_write.MIN_DIRECT_BYTES), then
    a BatchNormalization that fold-bn folds into it."""
    rng = np.random.default_rng(0)
    channels = 256
    filter_ = rng.random((channels, channels, 3, 3), np.float32)
    params = [rng.random(channels, np.float32) + 0.5 for _ in range(4)]
    shape = [1, channels, 4, 4]
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "W"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization", ["c", *"sbmv"], ["y"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        [numpy_helper.from_array(filter_, "W")]
        + [numpy_helper.from_array(p, n) for p, n in zip(params, "sbmv")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def disk_full() -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.fixture
def previous_pair(tmp_path, capsys):
    """out.onnx and out.onnx.data written from a model of ones; the model of
    twos (in.onnx) is to be written over them."""
    onnx.save(model_of(1.0), tmp_path / "ones.onnx")
    onnx.save(model_of(2.0), tmp_path / "in.onnx")
    out = tmp_path / "out.onnx"
    assert main([str(tmp_path / "ones.onnx"), "-o", str(out), "--external-data"]) == 0
    capsys.readouterr()
    return {path: path.read_bytes() for path in (out, tmp_path / "out.onnx.data")}


def full_while_writing_data(monkeypatch) -> None:
    """pwrite (where a weight's bytes go when the kernel copies none) writes
    FULL_AFTER bytes, then the disk is full."""
    written = [0]

    def pwrite(fd, data, offset):
        room = FULL_AFTER - written[0]
        if room <= 0:
            raise disk_full()
        done = os.pwrite.__wrapped__(fd, memoryview(data)[:room], offset)
        written[0] += done
        return done

    pwrite.__wrapped__ = os.pwrite
    monkeypatch.setattr(os, "pwrite", pwrite)
    monkeypatch.setattr(os, "copy_file_range", lambda *a: 0)


def full_while_writing_model(monkeypatch) -> None:
    """The model's stream takes MODEL_FULL_AFTER bytes, then the disk is full
    (the data file is complete)."""
    write_model = exporter.write_model

    class Full:
        def __init__(self, stream):
            self.stream, self.left = stream, MODEL_FULL_AFTER

        def write(self, data):
            if len(data) > self.left:
                self.stream.write(bytes(memoryview(data)[: self.left]))
                raise disk_full()
            self.left -= len(data)
            return self.stream.write(data)

        def flush(self):
            self.stream.flush()

    def failing(model, deferred, stream):
        write_model(model, deferred, Full(stream))

    monkeypatch.setattr(exporter, "write_model", failing)


@pytest.mark.parametrize("fail", [full_while_writing_data, full_while_writing_model])
def test_a_full_disk_leaves_the_previous_model_and_data(
    tmp_path, capsys, monkeypatch, previous_pair, fail
):
    fail(monkeypatch)
    code = main([str(tmp_path / "in.onnx"), "-o", str(tmp_path / "out.onnx"),
                 "--external-data"])  # fmt: skip
    monkeypatch.undo()
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    (line,) = err.splitlines()
    assert "No space left on device" in line
    assert {path: path.read_bytes() for path in previous_pair} == previous_pair
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "in.onnx", "ones.onnx", "out.onnx", "out.onnx.data"
    ]  # fmt: skip


def test_a_full_disk_under_a_direct_write_leaves_the_previous_model_and_data(
    tmp_path, capsys, monkeypatch
):
    """fold-bn's scaled filter (mapped from the input's external data: written
    with O_DIRECT) meets a full disk: the same outcome (this held before)."""
    onnx.save(conv_bn_model(), tmp_path / "m.onnx")
    ext, out = str(tmp_path / "ext.onnx"), str(tmp_path / "out.onnx")
    assert main([str(tmp_path / "m.onnx"), "-o", ext, "--external-data"]) == 0
    args = [ext, "-p", "fold-bn", "-o", out, "--external-data"]
    assert main(args) == 0
    capsys.readouterr()
    previous = {p: p.read_bytes() for p in tmp_path.glob("out.onnx*")}

    def full(fd, data, offset):
        raise disk_full()

    monkeypatch.setattr(direct_write, "write_at", full)
    code = main(args)
    monkeypatch.undo()
    output, err = capsys.readouterr()
    assert code == 1 and output == ""
    (line,) = err.splitlines()
    assert "No space left on device" in line
    assert {p: p.read_bytes() for p in tmp_path.glob("out.onnx*")} == previous
    assert not list(tmp_path.glob(".graph-opt-*"))
