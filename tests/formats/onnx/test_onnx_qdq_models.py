"""QDQ models written by onnxruntime's `quantize_static` come back bit-exact
through import, every pass and export, and the interpreter runs them."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (
    CalibrationDataReader,
    QuantFormat,
    QuantType,
    quantize_static,
)

from graph_opt.api import run
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function

RNG = np.random.default_rng(11)
INPUT_SHAPE = (1, 3, 12, 12)


def float_cnn() -> onnx.ModelProto:
    """Conv+Relu, Conv+Relu, global pool, Gemm: what quantize_static quantizes."""
    nodes, inits = [], []
    channels = [3, 8, 8]
    value = "x"
    for i, (cin, cout) in enumerate(zip(channels, channels[1:])):
        w = RNG.normal(0, 0.3, (cout, cin, 3, 3)).astype(np.float32)
        b = RNG.normal(0, 0.1, cout).astype(np.float32)
        inits += [
            numpy_helper.from_array(w, f"w{i}"),
            numpy_helper.from_array(b, f"b{i}"),
        ]
        nodes += [
            helper.make_node(
                "Conv", [value, f"w{i}", f"b{i}"], [f"c{i}"], pads=[1] * 4
            ),
            helper.make_node("Relu", [f"c{i}"], [f"r{i}"]),
        ]
        value = f"r{i}"
    inits += [
        numpy_helper.from_array(RNG.normal(0, 0.3, (10, 8)).astype(np.float32), "fc_w"),
        numpy_helper.from_array(np.zeros(10, np.float32), "fc_b"),
    ]
    nodes += [
        helper.make_node("GlobalAveragePool", [value], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, INPUT_SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        inits,
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8
    )


class RandomBatches(CalibrationDataReader):
    def __init__(self) -> None:
        rng = np.random.default_rng(3)
        self.batches = iter(
            [{"x": rng.normal(size=INPUT_SHAPE).astype(np.float32)} for _ in range(4)]
        )

    def get_next(self):
        return next(self.batches, None)


@pytest.fixture(
    scope="module",
    params=[
        (False, QuantType.QUInt8, QuantType.QInt8),
        (True, QuantType.QInt8, QuantType.QInt8),
        (False, QuantType.QInt16, QuantType.QInt8),
    ],
    ids=["uint8", "int8-per-channel", "int16"],
)
def qdq_model(request, tmp_path_factory) -> onnx.ModelProto:
    per_channel, activations, weights = request.param
    folder = tmp_path_factory.mktemp("qdq")
    onnx.save(float_cnn(), folder / "float.onnx")
    quantize_static(
        str(folder / "float.onnx"),
        str(folder / "qdq.onnx"),
        RandomBatches(),
        quant_format=QuantFormat.QDQ,
        per_channel=per_channel,
        activation_type=activations,
        weight_type=weights,
    )
    return onnx.load(folder / "qdq.onnx")


def run_onnx(
    model: onnx.ModelProto, x: np.ndarray, optimized: bool = True
) -> np.ndarray:
    options = ort.SessionOptions()
    if not optimized:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, {"x": x})[0]


def test_interpreter_computes_what_onnxruntime_computes(qdq_model):
    x = RNG.normal(size=INPUT_SHAPE).astype(np.float32)
    module = import_model(qdq_model)
    np.testing.assert_array_equal(
        run_function(module, [x])[0], run_onnx(qdq_model, x, optimized=False)
    )


@pytest.mark.parametrize(
    "pipeline", [None, "optimize", "fold-constants", "fuse-ops", "prune", "fold-bn"]
)
def test_round_trip_and_passes_are_bit_exact(qdq_model, pipeline):
    module = import_model(qdq_model)
    if pipeline is not None:
        run(module, pipeline)
    exported = export_module(module)
    op_types = sorted(n.op_type for n in exported.graph.node)
    assert op_types == sorted(n.op_type for n in qdq_model.graph.node)
    x = RNG.normal(size=INPUT_SHAPE).astype(np.float32)
    np.testing.assert_array_equal(run_onnx(exported, x), run_onnx(qdq_model, x))
