"""A SavedModel's large variables are mapped from their shards, never copied:
their CRC-32C is checked at import a piece at a time (pages given back), and
no page of them stays in the process unless a pass reads their values
(graph_opt/weights.py, tensor_bundle.TensorBundle.mapped)."""

import gc
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from google.protobuf import text_format

from graph_opt import api
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dense import scaled, to_numpy
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx import external_write as onnx_external_write
from graph_opt.formats.tensorflow.export.exporter import (
    _move_last,
    drop_unread_nodes,
    export_graph_def,
)
from graph_opt.formats.tensorflow.export.graph_def_stream import write_graph_def
from graph_opt.formats.tensorflow.schema import GraphDef
from graph_opt.testing.saved_models import (
    linear_graph,
    shard_name,
    variable_key,
    write_bundle,
    write_linear_saved_model,
)
from graph_opt.weights import ScaledWeight, WeightBytes, resident_bytes

SIZE = 1024
"""The kernel: SIZE x SIZE float32 (4 MiB) in shard 0; an unused variable of
half that in shard 1."""
UNTOUCHED = 256 << 10
"""What the mappings may hold without a weight read (pages mapped around a fault)."""
X = np.random.default_rng(1).standard_normal((1, SIZE), np.float32)


@pytest.fixture
def model(tmp_path) -> tuple[Path, np.ndarray, dict]:
    gc.collect()  # (the mappings of earlier tests' modules, which hold pages)
    rng = np.random.default_rng(0)
    kernel = rng.standard_normal((SIZE, SIZE), np.float32)
    kernel[0, :4] = [np.nan, -0.0, np.inf, 1e-45]  # special floats, kept bitwise
    variables = {
        "w": kernel,
        "unused": rng.standard_normal((SIZE // 2, SIZE), np.float32),
        "small": np.arange(8, dtype=np.float32),
    }
    directory = tmp_path / "model"
    entries = write_linear_saved_model(
        directory, variables, {variable_key("unused"): 1}
    )
    return directory, kernel, entries


def held(module) -> list:
    return [op.value.data.data for op in module.walk() if isinstance(op, ConstantOp)]


def test_import_maps_the_kernel_and_keeps_none_of_it(model):
    directory, kernel, _ = model
    module = api.load(directory)
    (data,) = held(module)  # (the unread variables import as nothing)
    assert type(data) is WeightBytes
    assert data.source.name.endswith(shard_name(0, 2))
    assert resident_bytes() < UNTOUCHED  # the CRC check gave its pages back
    assert np.array_equal(to_numpy(module_constant(module)).view(np.uint32),
                          kernel.view(np.uint32))  # fmt: skip
    assert resident_bytes() >= kernel.nbytes  # read now, by this test


def module_constant(module) -> object:
    return next(op.value for op in module.walk() if isinstance(op, ConstantOp))


def test_optimize_and_save_onnx_reads_no_weight(tmp_path, model):
    directory, kernel, _ = model
    module = api.load(directory)
    api.run(module, "optimize")
    out = tmp_path / "out" / "model.onnx"
    out.parent.mkdir()
    api.save(module, out, external_data=True)
    assert [type(d) for d in held(module)] == [WeightBytes]  # still the mapping
    assert resident_bytes() < UNTOUCHED  # no pass read the kernel, nor the export
    saved = onnx.load(out)
    (weight,) = [t for t in saved.graph.initializer if tuple(t.dims) == kernel.shape]
    assert weight.raw_data == kernel.tobytes()  # bit-identical, NaN and -0.0 too
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"x": X})
    np.testing.assert_allclose(y, X @ kernel, rtol=1e-3, atol=1e-3, equal_nan=True)


def test_save_graph_def_writes_the_mapped_kernel_bitwise(tmp_path, model):
    directory, kernel, _ = model
    module = api.load(directory)
    out = tmp_path / "model.pb"
    api.save(module, out)
    assert resident_bytes() < UNTOUCHED  # given back once copied into the GraphDef
    (data,) = held(api.load(out))
    assert bytes(data) == kernel.tobytes()


def flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x10
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("variable, shard", [("w", 0), ("unused", 1)])
def test_a_damaged_mapped_variable_is_refused_before_any_output(
    tmp_path, model, variable, shard
):
    """Even a variable nothing reads: TensorFlow's restore checks them all."""
    directory, _, entries = model
    entry = entries[variable_key(variable)]
    flip(directory / "variables" / shard_name(shard, 2), entry.offset + entry.size - 1)
    out = tmp_path / "out.onnx"
    result = subprocess.run(
        [sys.executable, "-m", "graph_opt", str(directory), "-o", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert variable_key(variable) in lines[0] and "checksum" in lines[0]
    assert not out.exists()


def test_graph_def_nodes_are_reordered_and_dropped_in_place():
    """The export's last steps move nodes, never copy them (a copy is one more
    of every constant's bytes): a node held before is the node in the graph."""
    graph = GraphDef()
    for name, op in [("y", "Identity"), ("c", "Const"), ("x", "Placeholder")]:
        graph.node.add(name=name, op=op)
    graph.node[0].input.append("x")
    held_node = graph.node[0]
    drop_unread_nodes(graph.node, {"y"})  # the Const nothing reads
    _move_last(graph.node, ["y"])
    held_node.device = "/cpu:0"
    assert [(n.name, n.device) for n in graph.node] == [("x", ""), ("y", "/cpu:0")]


def test_a_graph_def_frozen_with_a_checkpoint_maps_its_variables(tmp_path):
    """`--input-checkpoint`: the same mapping as a SavedModel's variables."""
    gc.collect()
    kernel = np.random.default_rng(2).standard_normal((SIZE, SIZE), np.float32)
    graph = tmp_path / "graph.pb"
    graph.write_bytes(linear_graph({"w": kernel}).SerializeToString())
    (tmp_path / "ckpt").mkdir()
    write_bundle(tmp_path / "ckpt" / "variables", {"w": kernel})
    module = api.load(graph, checkpoint=tmp_path / "ckpt" / "variables")
    (data,) = held(module)
    assert type(data) is WeightBytes and resident_bytes() < UNTOUCHED
    assert bytes(data) == kernel.tobytes()


@pytest.mark.parametrize("scale", [False, True])
def test_the_streamed_graph_def_is_the_graph_def_built_whole(model, scale):
    """Mapped (or scaled mapped) weights written from their mapping after
    their nodes' other fields parse as the GraphDef the export builds."""
    directory, kernel, _ = model
    module = api.load(directory)
    if scale:
        op = next(op for op in module.walk() if isinstance(op, ConstantOp))
        op.value = scaled(op.value, np.float32(0.5))
        assert type(op.value.data.data) is ScaledWeight
    out = io.BytesIO()
    write_graph_def(module, out)
    assert resident_bytes() < UNTOUCHED  # the pieces written were given back
    assert GraphDef.FromString(out.getvalue()) == export_graph_def(module)


@pytest.mark.parametrize("scale", [False, True])
def test_a_pbtxt_writes_the_mapped_kernel_a_piece_at_a_time(tmp_path, model, scale):
    """The text GraphDef is the bytes text_format gives the GraphDef built
    whole (NaN, -0.0 and denormals escaped as bytes), without the weight's
    pages or text held whole."""
    module = api.load(model[0])
    if scale:
        op = next(op for op in module.walk() if isinstance(op, ConstantOp))
        op.value = scaled(op.value, np.float32(0.5))
    out = tmp_path / "model.pbtxt"
    api.save(module, out)
    assert resident_bytes() < UNTOUCHED  # the pieces written were given back
    whole = text_format.MessageToString(export_graph_def(module)).encode()
    assert out.read_bytes() == whole


def test_graph_opt_writes_the_same_pbtxt(tmp_path, model):
    out = tmp_path / "cli.pbtxt"
    subprocess.run(
        [sys.executable, "-m", "graph_opt", str(model[0]), "-t", "graphdef", "-o", str(out)],
        check=True,
    )  # fmt: skip
    whole = text_format.MessageToString(export_graph_def(api.load(model[0])))
    assert out.read_text() == whole


def test_a_streamed_graph_def_past_the_limit_is_refused_before_writing(
    tmp_path, model, monkeypatch
):
    monkeypatch.setattr(onnx_external_write, "PROTOBUF_LIMIT", 1 << 20)
    module = api.load(model[0])
    for out in (tmp_path / "big.pb", tmp_path / "big.pbtxt"):
        with pytest.raises(FrontendError, match="2 GiB") as refused:
            api.save(module, out)
        assert "\n" not in str(refused.value) and not out.exists()


def test_tensorflow_runs_the_streamed_graph_def(tmp_path, model):
    tf = pytest.importorskip("tensorflow")
    directory, kernel, _ = model
    out = tmp_path / "model.pb"
    api.save(api.load(directory), out)
    graph_def = tf.compat.v1.GraphDef.FromString(out.read_bytes())
    with tf.Graph().as_default() as graph:
        tf.compat.v1.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=graph) as session:
            (y,) = session.run(["y:0"], {"x:0": X})
    np.testing.assert_allclose(y, X @ kernel, rtol=1e-3, atol=1e-3, equal_nan=True)
