"""Weights are held once: import copies each initializer's bytes once out of the
protobuf message and keeps them as the constant's data (numpy views of them,
no conversion), and the export writes them from there (onnx_stream) instead
of building and serializing a model that holds them twice more."""

from __future__ import annotations

import gc
import io
import tracemalloc

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.formats.onnx.exporter import export_module, save_model
from graph_opt.formats.onnx.importer import import_model
from graph_opt.formats.onnx.stream import DEFERRED_MIN_BYTES

WEIGHT_BYTES = 8 << 20


def weighty_model() -> onnx.ModelProto:
    """8 MiB of f32 weights, i64 indices, f16 and small constants."""
    rng = np.random.default_rng(0)
    initializers = [
        numpy_helper.from_array(
            rng.standard_normal((256, 8192), dtype=np.float32), "big"
        ),
        numpy_helper.from_array(np.arange(8192, dtype=np.int64), "indices"),
        numpy_helper.from_array(rng.standard_normal(4096).astype(np.float16), "half"),
        numpy_helper.from_array(np.arange(3, dtype=np.float32), "small"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "big"], ["y"]),
        helper.make_node("Gather", ["y", "indices"], ["g"], axis=1),
        helper.make_node("Cast", ["half"], ["half32"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["small", "small"], ["square"]),
    ]
    outputs = [
        helper.make_tensor_value_info(name, TensorProto.FLOAT, None)
        for name in ("g", "half32", "square")
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256])],
        outputs,
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def model_weight_bytes(model: onnx.ModelProto) -> int:
    return sum(len(t.raw_data) for t in model.graph.initializer)


def base_object(array: np.ndarray) -> object:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array.base


def traced_peak(step) -> tuple[object, int]:
    gc.collect()
    tracemalloc.start()
    try:
        result = step()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def test_import_copies_each_weight_once_and_constants_view_it():
    model = weighty_model()
    weights = model_weight_bytes(model)
    assert weights > WEIGHT_BYTES
    module, peak = traced_peak(lambda: import_model(model))
    # One copy of the weights out of the message, plus the IR: a second copy
    # (a numpy conversion, a list, tobytes) would double it.
    assert peak < 1.25 * weights, (peak, weights)
    constants = {
        op.output.name_hint: op for op in module.walk() if isinstance(op, ConstantOp)
    }
    big = constants["big"]
    array = big.to_array()
    assert base_object(array) is big.value.data.data  # a view, not a copy
    assert not array.flags.writeable


def test_saving_writes_the_module_bytes_without_copying_them(tmp_path):
    model = weighty_model()
    module = import_model(model)
    weights = model_weight_bytes(model)
    path = tmp_path / "out.onnx"
    with open(path, "wb") as out:
        _, peak = traced_peak(lambda: save_model(module, out))
    assert peak < 0.1 * weights, (peak, weights)
    assert onnx.load(path) == export_module(module)


def test_the_stream_parses_to_the_exported_model():
    """Small and large, raw and non-raw initializers; the bytes parse to the
    very message export_module builds, and onnx's checker accepts them."""
    model = weighty_model()
    strings = numpy_helper.from_array(np.array([b"a", b"bc"], dtype=object), "s")
    model.graph.initializer.append(strings)
    model.graph.node.append(helper.make_node("Identity", ["s"], ["s_out"]))
    model.graph.output.append(
        helper.make_tensor_value_info("s_out", TensorProto.STRING, [2])
    )
    module = import_model(model)
    stream = io.BytesIO()
    save_model(module, stream)
    written = onnx.load_from_string(stream.getvalue())
    assert written == export_module(module)
    onnx.checker.check_model(written, full_check=True)
    sizes = {t.name: len(t.raw_data) for t in written.graph.initializer}
    assert sizes["big"] >= DEFERRED_MIN_BYTES > sizes["small"]
