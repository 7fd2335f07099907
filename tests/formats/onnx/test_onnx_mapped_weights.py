"""Weights held where they lie: an ONNX model's external initializers are
mapped, never read unless a pass reads their values, and written back to
external data file to file (graph_opt/weights.py, onnx_external_write.py)."""

import gc
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api, weights
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dense import from_numpy, to_numpy
from graph_opt.formats import direct_write
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx import external_write as onnx_external_write
from graph_opt.formats.onnx.exporter import save_model
from graph_opt.formats.onnx.external_write import ALIGNMENT
from graph_opt.weights import ScaledWeight, WeightBytes, resident_bytes

SIZE = 1024
"""Weights of SIZE x SIZE float32: 4 MiB each, 6 of them (24 MiB)."""
LAYERS = 5
UNTOUCHED = 256 << 10
"""What the mappings may hold without a weight read: the pages the kernel maps
around a fault, never a whole weight."""


def build(directory: Path, scale: bool = False) -> tuple[Path, np.ndarray]:
    """x -> (MatMul w_i, Add b_i [, Mul s_i], Relu) x LAYERS -> MatMul tied,
    with `tied` also read by the first layer's sibling: one weight, two nodes.
    Saved with external data; returns the model path and its output for X."""
    rng = np.random.default_rng(0)
    inits, nodes, value = [], [], "x"
    tied = rng.standard_normal((SIZE, SIZE), np.float32) / 32
    inits.append(numpy_helper.from_array(tied, "tied"))
    nodes.append(helper.make_node("MatMul", ["x", "tied"], ["side"]))
    for i in range(LAYERS):
        w = rng.standard_normal((SIZE, SIZE), np.float32) / 32
        inits += [
            numpy_helper.from_array(w, f"w{i}"),
            numpy_helper.from_array(rng.standard_normal(SIZE, np.float32), f"b{i}"),
        ]
        nodes += [
            helper.make_node("MatMul", [value, f"w{i}"], [f"m{i}"]),
            helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"]),
        ]
        if scale:
            s = rng.uniform(0.5, 1.5, SIZE).astype(np.float32)
            inits.append(numpy_helper.from_array(s, f"s{i}"))
            nodes.append(helper.make_node("Mul", [f"a{i}", f"s{i}"], [f"a{i}s"]))
        last = f"a{i}s" if scale else f"a{i}"
        nodes.append(helper.make_node("Relu", [last], [f"r{i}"]))
        value = f"r{i}"
    nodes.append(helper.make_node("MatMul", [value, "tied"], ["t"]))
    nodes.append(helper.make_node("Add", ["t", "side"], ["y"]))
    vector = [
        helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, SIZE]) for n in "xy"
    ]
    graph = helper.make_graph(nodes, "g", vector[:1], vector[1:], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 9
    path = directory / "model.onnx"
    onnx.save(model, path, save_as_external_data=True, location="weights.bin")
    return path, run(path)


X = np.random.default_rng(1).standard_normal((1, SIZE), np.float32)


def run(path: Path) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": X})[0]


def constants(module) -> list[ConstantOp]:
    return [op for op in module.walk() if isinstance(op, ConstantOp)]


def held(module) -> list:
    return [op.value.data.data for op in constants(module)]


@pytest.fixture
def computed(monkeypatch) -> list:
    """The ScaledWeights whose values anything computes whole, in order."""
    computed = []
    values = ScaledWeight.values
    monkeypatch.setattr(
        ScaledWeight, "values", lambda self: computed.append(self) or values(self)
    )
    return computed


@pytest.fixture
def model(tmp_path):
    gc.collect()  # (the mappings of earlier tests' modules, which hold pages)
    return build(tmp_path)


def test_import_maps_the_weights_and_reads_none(model):
    path, _ = model
    module = api.load(path)
    mapped = [d for d in held(module) if type(d) is WeightBytes]
    assert len(mapped) == LAYERS + 1  # the weights; the 4 KiB biases are read
    assert resident_bytes() < UNTOUCHED
    assert len({hash(d) for d in mapped}) == len(mapped)  # hashing reads nothing
    assert mapped[0] == mapped[0] and mapped[0] != mapped[1]
    assert resident_bytes() < UNTOUCHED


def test_reading_one_weight_loads_that_weight_only(model):
    path, _ = model
    module = api.load(path)
    first = next(
        op for op in constants(module) if type(op.value.data.data) is WeightBytes
    )
    assert float(np.abs(to_numpy(first.value)).sum()) > 0
    assert SIZE * SIZE * 4 <= resident_bytes() < SIZE * SIZE * 4 + UNTOUCHED


def test_optimize_and_save_writes_external_data_without_reading(tmp_path, model):
    path, expected = model
    module = api.load(path)
    api.run(module, "optimize")
    out = tmp_path / "out" / "model.onnx"
    out.parent.mkdir()
    api.save(module, out, external_data=True)
    assert resident_bytes() < UNTOUCHED  # no pass read a weight, nor the export
    saved = onnx.load(out, load_external_data=False)
    data_size = (out.parent / "model.onnx.data").stat().st_size
    placed = {}
    for tensor in saved.graph.initializer:
        if tensor.data_location != TensorProto.EXTERNAL:
            continue
        keys = {e.key: e.value for e in tensor.external_data}
        assert keys["location"] == "model.onnx.data"
        offset, length = int(keys["offset"]), int(keys["length"])
        assert offset % ALIGNMENT == 0 and offset + length <= data_size
        if length == SIZE * SIZE * 4:
            placed[tensor.name] = offset
    assert len(placed) == len(set(placed.values())) == LAYERS + 1  # tied: once
    np.testing.assert_allclose(run(out), expected, rtol=1e-5, atol=1e-5)


def test_fold_bn_scales_a_mapped_weight_when_written(tmp_path):
    gc.collect()
    path, expected = build(tmp_path, scale=True)
    module = api.load(path)
    api.run(module, "fold-bn")
    scaled = [d for d in held(module) if type(d) is ScaledWeight]
    assert len(scaled) == LAYERS
    assert resident_bytes() < UNTOUCHED  # folded, nothing computed yet
    out = tmp_path / "folded.onnx"
    api.save(module, out, external_data="folded.bin")
    assert (tmp_path / "folded.bin").exists()
    np.testing.assert_allclose(run(out), expected, rtol=1e-4, atol=1e-4)
    assert resident_bytes() <= weights.RESIDENT_BUDGET + UNTOUCHED


def test_folded_weights_written_direct_are_the_bytes_written_before(
    tmp_path, monkeypatch
):
    """The scaled weights go past the page cache (O_DIRECT); the data file
    is byte for byte the one the page cache gives."""
    path, expected = build(tmp_path, scale=True)
    module = api.load(path)
    api.run(module, "fold-bn")
    for name in ("direct", "buffered"):
        (tmp_path / name).mkdir()
        api.save(module, tmp_path / name / "m.onnx", external_data=True)
        monkeypatch.setattr(direct_write, "_reopened_direct", lambda fd: None)
    direct, buffered = (tmp_path / n / "m.onnx.data" for n in ("direct", "buffered"))
    assert direct.stat().st_size > LAYERS * SIZE * SIZE * 4
    assert direct.read_bytes() == buffered.read_bytes()
    np.testing.assert_allclose(
        run(tmp_path / "direct" / "m.onnx"), expected, rtol=1e-4, atol=1e-4
    )


def test_the_mapping_outlives_the_removed_file(tmp_path, model):
    path, expected = model
    module = api.load(path)
    (tmp_path / "weights.bin").unlink()
    out = tmp_path / "again.onnx"
    api.save(module, out, external_data=True)
    np.testing.assert_allclose(run(out), expected, rtol=1e-5, atol=1e-5)


def test_a_model_past_protobufs_limit_gets_external_data_unasked(
    tmp_path, model, monkeypatch
):
    path, expected = model
    module = api.load(path)
    monkeypatch.setattr(onnx_external_write, "PROTOBUF_LIMIT", 1 << 20)
    out = tmp_path / "big.onnx"
    api.save(module, out)
    assert (tmp_path / "big.onnx.data").stat().st_size > 4 * SIZE * SIZE * LAYERS
    np.testing.assert_allclose(run(out), expected, rtol=1e-5, atol=1e-5)


def test_a_model_past_the_limit_without_a_file_is_refused_in_one_line(
    model, monkeypatch
):
    module = api.load(model[0])
    monkeypatch.setattr(onnx_external_write, "PROTOBUF_LIMIT", 1 << 20)
    with pytest.raises(FrontendError, match="2 GiB.*-o") as refused:
        save_model(module, io.BytesIO())
    assert "\n" not in str(refused.value)


def test_a_model_still_past_the_limit_is_refused(tmp_path, model, monkeypatch):
    module = api.load(model[0])
    monkeypatch.setattr(onnx_external_write, "PROTOBUF_LIMIT", 1 << 20)
    with pytest.raises(FrontendError, match="even with its weights"):
        api.save(module, tmp_path / "o.onnx", external_data_threshold=1 << 30)


def test_computed_weights_spill_to_a_mapped_file(monkeypatch):
    monkeypatch.setattr("graph_opt.dialects.nn.dense.SPILL_MIN_BYTES", 1 << 20)
    array = np.arange(1 << 19, dtype=np.float32)
    attr = from_numpy(array)
    assert type(attr.data.data) is WeightBytes
    np.testing.assert_array_equal(to_numpy(attr), array)


def test_the_command_line_writes_external_data_on_request(tmp_path, model):
    path, expected = model
    out = tmp_path / "cli.onnx"
    command = [sys.executable, "-m", "graph_opt", str(path), "-p", "optimize"]
    done = subprocess.run(
        [*command, "-t", "onnx", "-o", str(out), "--external-data=cli.bin"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cli.bin").stat().st_size > 4 * SIZE * SIZE * LAYERS
    np.testing.assert_allclose(run(out), expected, rtol=1e-5, atol=1e-5)
    refused = subprocess.run(
        [*command, "-t", "onnx", "-o", str(out), "--external-data=../w.bin"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert refused.returncode != 0
    assert "a file name beside the model" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_graph_def_past_protobufs_limit_is_refused_in_one_line(
    tmp_path, model, monkeypatch
):
    module = api.load(model[0])
    monkeypatch.setattr(onnx_external_write, "PROTOBUF_LIMIT", 1 << 20)
    with pytest.raises(FrontendError, match="past protobuf's 2 GiB") as refused:
        api.save(module, tmp_path / "model.pb")
    assert "\n" not in str(refused.value)
    assert not (tmp_path / "model.pb").exists()


def test_a_lazily_scaled_weight_holds_the_bits_of_the_eager_fold(tmp_path):
    path, _ = build(tmp_path, scale=True)
    lazy = api.load(path)
    eager = api.load(onnx.load(path))  # (its weights read into the message)
    for module in (lazy, eager):
        api.run(module, "fold-bn")
    folded = [
        (to_numpy(a.value), to_numpy(b.value))
        for a, b in zip(constants(lazy), constants(eager))
        if type(a.value.data.data) is ScaledWeight
    ]
    assert len(folded) == LAYERS
    for got, expected in folded:
        np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))


def test_optimize_computes_no_scaled_weight_before_writing_it(tmp_path, computed):
    """Passes that only ask whether a value is a constant (sibling matmuls,
    constant evaluation, fold-bn's planning) never compute a folded weight."""
    path, expected = build(tmp_path, scale=True)
    module = api.load(path)
    api.run(module, "optimize")
    assert sum(type(d) is ScaledWeight for d in held(module)) == LAYERS
    assert computed == []
    out = tmp_path / "optimized.onnx"
    api.save(module, out, external_data=True)
    assert computed == []  # written piece by piece
    np.testing.assert_allclose(run(out), expected, rtol=1e-4, atol=1e-4)


def scaled_weight(
    tmp_path: Path, factor: np.ndarray
) -> tuple[ScaledWeight, np.ndarray]:
    """A mapped 64 x 32 float32 weight scaled by `factor`, and the weight."""
    w = np.random.default_rng(0).standard_normal((64, 32), np.float32)
    w.tofile(tmp_path / "w.bin")
    fd = os.open(tmp_path / "w.bin", os.O_RDONLY)
    try:
        mapped = weights.MappedFile(fd, w.nbytes, "w.bin")
    finally:
        os.close(fd)
    return ScaledWeight(mapped.region(0, w.nbytes), w.shape, np.float32, factor), w


def test_a_factor_float32_holds_scales_in_float32_with_the_same_bits(tmp_path):
    """fold-bn's factor comes as float64; when float32 holds it exactly, the
    products are computed in float32 (no cast to float64 and back) and are
    the bits the float64 product rounds to."""
    factor = np.random.default_rng(1).standard_normal(32).astype(np.float32)
    weight, w = scaled_weight(tmp_path, factor.astype(np.float64))
    assert weight.factor.dtype == np.float32
    expected = (w * factor.astype(np.float64)).astype(np.float32)
    got = np.concatenate([np.asarray(p).ravel() for p in weight.pieces()])
    np.testing.assert_array_equal(got.view(np.uint32), expected.ravel().view(np.uint32))


def test_a_factor_float32_cannot_hold_keeps_its_precision(tmp_path):
    factor = 1 + np.random.default_rng(1).standard_normal(32) * 1e-9
    weight, w = scaled_weight(tmp_path, factor)
    assert weight.factor.dtype == np.float64
    expected = (w * factor).astype(np.float32)
    np.testing.assert_array_equal(
        weight.values().view(np.uint32), expected.view(np.uint32)
    )


@pytest.mark.parametrize("trans_b", [0, 1])
def test_fold_bn_scales_a_mapped_gemm_weight_lazily(tmp_path, trans_b):
    """Gemm's b, like MatMul's, is scaled when read or written (no copy
    computed by the pass), with the bits the eager fold gives."""
    rng = np.random.default_rng(2)
    b = rng.standard_normal((SIZE, SIZE), np.float32) / 32
    s = rng.uniform(0.5, 1.5, SIZE).astype(np.float32)
    inits = [
        numpy_helper.from_array(b, "b"),
        numpy_helper.from_array(rng.standard_normal(SIZE, np.float32), "c"),
        numpy_helper.from_array(s, "s"),
    ]
    nodes = [
        helper.make_node("Gemm", ["x", "b", "c"], ["g"], transB=trans_b, beta=0.5),
        helper.make_node("Mul", ["g", "s"], ["y"]),
    ]
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, SIZE]) for n in "xy"]
    graph = helper.make_graph(nodes, "g", io[:1], io[1:], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 9
    path = tmp_path / "gemm.onnx"
    onnx.save(model, path, save_as_external_data=True, location="weights.bin")
    lazy, eager = api.load(path), api.load(onnx.load(path))
    for module in (lazy, eager):
        api.run(module, "fold-bn")
    (folded,) = [
        op for op in constants(lazy) if type(op.value.data.data) is ScaledWeight
    ]
    (expected,) = [
        op for op in constants(eager) if op.value.get_shape() == (SIZE, SIZE)
    ]
    np.testing.assert_array_equal(
        to_numpy(folded.value).view(np.uint32), to_numpy(expected.value).view(np.uint32)
    )
    out = tmp_path / "folded.onnx"
    api.save(lazy, out, external_data="folded.bin")
    np.testing.assert_allclose(run(out), run(path), rtol=1e-4, atol=1e-4)


def conv_model(directory: Path, op_type: str) -> Path:
    """x -> Conv or ConvTranspose (group 2; a 4.5 MiB filter, a bias) ->
    BatchNormalization -> Relu, its weights in external data."""
    rng = np.random.default_rng(3)
    channels, filters = 512, 256
    shape = (filters, channels, 3, 3) if op_type == "Conv" else (channels, 128, 3, 3)
    group = 1 if op_type == "Conv" else 2
    inits = [
        numpy_helper.from_array(rng.standard_normal(shape, np.float32) / 48, "w"),
        numpy_helper.from_array(rng.standard_normal(filters, np.float32), "b"),
        numpy_helper.from_array(rng.uniform(0.5, 1.5, filters).astype(np.float32), "g"),
        numpy_helper.from_array(rng.standard_normal(filters, np.float32), "beta"),
        numpy_helper.from_array(rng.standard_normal(filters, np.float32), "mean"),
        numpy_helper.from_array(rng.uniform(0.5, 2, filters).astype(np.float32), "var"),
    ]
    nodes = [
        helper.make_node(op_type, ["x", "w", "b"], ["c"], pads=[1] * 4, group=group),
        helper.make_node(
            "BatchNormalization", ["c", "g", "beta", "mean", "var"], ["n"]
        ),
        helper.make_node("Relu", ["n"], ["y"]),
    ]
    io = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, 8, 8]),
        helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
    ]
    graph = helper.make_graph(nodes, "g", io[:1], io[1:], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 9
    path = directory / f"{op_type}.onnx"
    onnx.save(model, path, save_as_external_data=True, location=f"{op_type}.bin")
    return path


@pytest.mark.parametrize("op_type", ["Conv", "ConvTranspose"])
def test_optimize_scales_a_mapped_conv_filter_only_when_writing_it(
    tmp_path, computed, op_type
):
    """A conv's filter, like a matmul's weight, stays mapped through fold-bn
    (a ScaledWeight along its output channels): no page read before export,
    and the export computes it piece by piece."""
    gc.collect()
    path = conv_model(tmp_path, op_type)
    module = api.load(path)
    api.run(module, "optimize")
    assert sum(type(d) is ScaledWeight for d in held(module)) == 1
    assert resident_bytes() < UNTOUCHED
    out = tmp_path / "folded.onnx"
    api.save(module, out, external_data=True)
    assert computed == []
    assert resident_bytes() <= weights.RESIDENT_BUDGET + UNTOUCHED
    x = np.random.default_rng(4).standard_normal((1, 512, 8, 8), np.float32)
    got, expected = (
        ort.InferenceSession(str(p), providers=["CPUExecutionProvider"]).run(
            None, {"x": x}
        )[0]
        for p in (out, path)
    )
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op_type", ["Conv", "ConvTranspose"])
def test_a_lazily_scaled_conv_filter_holds_the_bits_of_the_eager_fold(
    tmp_path, op_type
):
    path = conv_model(tmp_path, op_type)
    lazy = api.load(path)
    eager = api.load(onnx.load(path))  # (its weights read into the message)
    for module in (lazy, eager):
        api.run(module, "fold-bn")
    (folded,) = [
        op for op in constants(lazy) if type(op.value.data.data) is ScaledWeight
    ]
    (expected,) = [
        op
        for op in constants(eager)
        if op.value.get_shape() == folded.value.get_shape()
    ]
    np.testing.assert_array_equal(
        to_numpy(folded.value).view(np.uint32), to_numpy(expected.value).view(np.uint32)
    )
