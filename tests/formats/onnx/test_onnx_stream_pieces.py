"""`write_model` splices deferred weights between runs of small initializers
serialized together: the bytes parse to the full model, initializers in order."""

from __future__ import annotations

import io

import numpy as np
import onnx
from onnx import helper, numpy_helper

from graph_opt.formats.onnx.stream import write_model


def model_with(initializers: list[onnx.TensorProto]) -> onnx.ModelProto:
    graph = helper.make_graph([], "g", [], [], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def tensors() -> list[onnx.TensorProto]:
    """Small and large, alternating, large ones first and last."""
    arrays = {
        "big_a": np.arange(2048, dtype=np.float32),
        "s1": np.arange(3, dtype=np.float32),
        "s2": np.array([True, False]),
        "big_b": np.arange(1024, dtype=np.int64),
        "s3": np.arange(4, dtype=np.int8).reshape(2, 2),
        "big_c": np.ones(4096, dtype=np.float16),
    }
    return [numpy_helper.from_array(a, name) for name, a in arrays.items()]


def written(model: onnx.ModelProto, deferred: dict[str, bytes]) -> onnx.ModelProto:
    stream = io.BytesIO()
    write_model(model, deferred, stream)
    return onnx.load_from_string(stream.getvalue())


def test_deferred_weights_between_runs_of_small_ones():
    full = model_with(tensors())
    light = model_with(tensors())
    deferred = {}
    for tensor in light.graph.initializer:
        if tensor.name.startswith("big"):
            deferred[tensor.name] = tensor.raw_data
            tensor.ClearField("raw_data")
    assert written(light, deferred) == full
    assert [t.name for t in written(model_with(tensors()), {}).graph.initializer] == [
        t.name for t in full.graph.initializer
    ]


def test_small_initializers_only_and_none():
    assert written(model_with(tensors()), {}) == model_with(tensors())
    assert written(model_with([]), {}) == model_with([])
