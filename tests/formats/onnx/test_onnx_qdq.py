"""QuantizeLinear / DequantizeLinear import exactly (nn.quantize / nn.dequantize) and
nn.fake_quant exports as a QDQ pair; each computes what onnxruntime computes."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr

from graph_opt.api import parse, run
from graph_opt.dialects.nn.dtypes import element_type
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.qint import DequantizeOp, QuantizeOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import OPSET_ATTR, import_model
from graph_opt.interpreter import run_function

RNG = np.random.default_rng(5)
SHAPE = (2, 3, 4)


def qdq_model(
    scale, zero_point, axis=None, dq_scale=None, extra_outputs=(), nodes=None
):
    """x -> QuantizeLinear -> DequantizeLinear -> y, constants as initializers."""
    attrs = {} if axis is None else {"axis": axis}
    dq_scale = scale if dq_scale is None else dq_scale
    inits = [
        numpy_helper.from_array(np.asarray(scale, np.float32), "scale"),
        numpy_helper.from_array(np.asarray(dq_scale, np.float32), "dq_scale"),
        numpy_helper.from_array(np.asarray(zero_point), "zero_point"),
    ]
    nodes = nodes or [
        helper.make_node("QuantizeLinear", ["x", "scale", "zero_point"], ["q"], **attrs),
        helper.make_node("DequantizeLinear", ["q", "dq_scale", "zero_point"], ["y"], **attrs),
    ]  # fmt: skip
    outputs = [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, SHAPE)]
    for name, elem in extra_outputs:
        outputs.append(helper.make_tensor_value_info(name, elem, SHAPE))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, SHAPE)],
        outputs,
        inits,
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10
    )


def run_onnx(model: onnx.ModelProto, x: np.ndarray) -> list[np.ndarray]:
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, {session.get_inputs()[0].name: x})


def wide_input() -> np.ndarray:
    return RNG.uniform(-4, 4, SHAPE).astype(np.float32)


def ops_of(module, op_type):
    return [op for op in module.walk() if isinstance(op, op_type)]


@pytest.mark.parametrize(
    "scale, zero_point, axis",
    [
        (np.float32(0.02), np.uint8(97), None),
        (np.float32(0.03), np.int8(-5), None),
        (np.float32(0.01), np.int8(0), None),
        (np.array([0.02, 0.005, 0.04], np.float32), np.array([0, 10, -3], np.int8), 1),
        (np.array([0.01, 0.02], np.float32), np.array([200, 3], np.uint8), 0),
        (np.float32(1e-4), np.uint16(30000), None),
        (np.float32(0.0386410690), np.int16(-7), None),
        (np.array([0.05], np.float32), np.int8(3), None),  # onnxruntime's bias form
    ],
)  # fmt: skip
def test_qdq_pair_is_exact_through_import_and_export(scale, zero_point, axis):
    model = qdq_model(scale, zero_point, axis)
    module = import_model(model)
    (quantize,) = ops_of(module, QuantizeOp)
    (dequantize,) = ops_of(module, DequantizeOp)
    assert not ops_of(module, OpaqueOp)
    assert quantize.scales.tobytes() == np.asarray(scale, np.float32).tobytes()
    assert quantize.output.type.element_type == element_type(zero_point.dtype)
    x = wide_input()
    (expected,) = run_onnx(model, x)
    np.testing.assert_array_equal(run_function(module, [x])[0], expected)
    exported = export_module(module)
    np.testing.assert_array_equal(run_onnx(exported, x)[0], expected)
    scales = [numpy_helper.to_array(i) for i in exported.graph.initializer
              if i.data_type == onnx.TensorProto.FLOAT]  # fmt: skip
    assert all(s.tobytes() == np.asarray(scale, np.float32).tobytes() for s in scales)


@pytest.mark.parametrize("opset", [10, 13, 19, 21])
def test_qdq_without_zero_point_is_uint8_at_every_opset(opset):
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "scale"], ["q"]),
        helper.make_node("DequantizeLinear", ["q", "scale"], ["y"]),
    ]
    model = qdq_model(np.float32(0.03), np.uint8(0), nodes=nodes)
    model.opset_import[0].version = opset
    module = import_model(model)
    assert len(ops_of(module, QuantizeOp)) == len(ops_of(module, DequantizeOp)) == 1
    x = wide_input()
    np.testing.assert_array_equal(run_function(module, [x])[0], run_onnx(model, x)[0])


def test_quantized_value_used_elsewhere_is_an_output():
    model = qdq_model(
        np.float32(0.05), np.uint8(128), extra_outputs=[("q", onnx.TensorProto.UINT8)]
    )
    module = import_model(model)
    assert not ops_of(module, OpaqueOp)
    x = wide_input()
    for actual, expected in zip(run_function(module, [x]), run_onnx(model, x)):
        np.testing.assert_array_equal(actual, expected)


def test_quantized_weights_stay_quantized_through_optimize():
    weight = RNG.integers(-127, 128, SHAPE).astype(np.int8)
    nodes = [
        helper.make_node("DequantizeLinear", ["w", "scale", "zero_point"], ["wf"]),
        helper.make_node("Add", ["x", "wf"], ["y"]),
    ]
    model = qdq_model(np.float32(0.05), np.int8(0), nodes=nodes)
    model.graph.initializer.append(numpy_helper.from_array(weight, "w"))
    module = import_model(model)
    run(module, "optimize")
    assert len(ops_of(module, DequantizeOp)) == 1
    x = wide_input()
    exported = export_module(module)
    assert [n.op_type for n in exported.graph.node] == ["DequantizeLinear", "Add"]
    np.testing.assert_array_equal(run_onnx(exported, x)[0], run_onnx(model, x)[0])


def test_negative_pair_with_different_scales_is_two_exact_ops():
    model = qdq_model(np.float32(0.05), np.uint8(3), dq_scale=np.float32(0.1))
    module = import_model(model)
    assert len(ops_of(module, QuantizeOp)) == len(ops_of(module, DequantizeOp)) == 1
    x = wide_input()
    np.testing.assert_array_equal(run_function(module, [x])[0], run_onnx(model, x)[0])


def test_negative_runtime_scale_stays_opaque_and_runs():
    nodes = [
        helper.make_node("Abs", ["scale"], ["abs_scale"]),
        helper.make_node("QuantizeLinear", ["x", "abs_scale", "zero_point"], ["q"]),
        helper.make_node("DequantizeLinear", ["q", "abs_scale", "zero_point"], ["y"]),
    ]
    model = qdq_model(np.float32(0.05), np.uint8(3), nodes=nodes)
    model.opset_import[0].version = 17  # onnx's evaluator implements them from 19
    module = import_model(model)
    assert not ops_of(module, QuantizeOp)
    assert len(ops_of(module, OpaqueOp)) == 2
    x = wide_input()
    np.testing.assert_array_equal(run_function(module, [x])[0], run_onnx(model, x)[0])


def fake_quant_module(props: str, shape="2x3x4", weight=False, opset=None):
    source = "%w = nn.constant dense<[[[-0.5, 0.25, 0.5, 0.125], [0.2, -0.1, 0.3, 0.4], [0.9, -0.9, 0.0, 0.1]], [[0.05, 0.1, -0.2, 0.3], [-0.3, 0.2, 0.1, 0.0], [0.6, 0.3, -0.6, 0.2]]]> : tensor<2x3x4xf32>\n"
    operand = "%w" if weight else "%x"
    module = parse(
        f"""
        func.func @main(%x: tensor<{shape}xf32>) -> tensor<{shape}xf32> {{
          {source if weight else ""}
          %0 = nn.fake_quant {operand} {{{props}}} : (tensor<{shape}xf32>) -> tensor<{shape}xf32>
          %1 = nn.add %0, %x : (tensor<{shape}xf32>, tensor<{shape}xf32>) -> tensor<{shape}xf32>
          func.return %1 : tensor<{shape}xf32>
        }}
        """
    )
    if opset is not None:
        module.attributes[OPSET_ATTR] = DictionaryAttr({"": IntegerAttr(opset, 64)})
    return module


@pytest.mark.parametrize(
    "props, weight, zero_point_type, clamp",
    [
        ("min = array<f32: -1.3>, max = array<f32: 2.1>, num_bits = 8", False, np.uint8, None),
        ("min = array<f32: -2.0>, max = array<f32: 1.984375>, num_bits = 8", False, np.int8, None),
        ("min = array<f32: 0.5>, max = array<f32: 3.0>, num_bits = 8", False, np.uint8, None),
        ("min = array<f32: -1.1>, max = array<f32: 1.1>, num_bits = 8, narrow_range = 1", False, np.int8, "nodes"),
        ("min = array<f32: -0.9>, max = array<f32: 1.7>, num_bits = 4", False, np.uint8, "nodes"),
        ("min = array<f32: -3.0, -1.0>, max = array<f32: 1.0, 2.5>, num_bits = 5, axis = 0", False, np.uint8, "nodes"),
        # weights inside their nudged ranges need no clamp
        ("min = array<f32: -0.9, -0.5, -1.0>, max = array<f32: 0.9, 0.5, 1.0>, num_bits = 8, narrow_range = 1, axis = 1", True, np.int8, None),
        # weights outside them (0.4 > nudged 0.3996) are clamped in a copy
        ("min = array<f32: -0.9, -0.3, -1.0>, max = array<f32: 0.9, 0.4, 1.0>, num_bits = 8, narrow_range = 1, axis = 1", True, np.int8, "constant"),
    ],
)  # fmt: skip
def test_fake_quant_exports_as_qdq_pair(props, weight, zero_point_type, clamp):
    module = fake_quant_module(props, weight=weight)
    model = export_module(module)
    types = [n.op_type for n in model.graph.node]
    assert types.count("QuantizeLinear") == types.count("DequantizeLinear") == 1
    initializers = {i.name.rstrip("_0123456789"): i for i in model.graph.initializer}
    assert ("Min" in types) == (clamp == "nodes")
    assert ("clamped" in initializers) == (clamp == "constant")
    read = {name for node in model.graph.node for name in node.input}
    assert {
        i.name for i in model.graph.initializer
    } <= read  # the unclamped copy is gone
    zero_point = numpy_helper.to_array(initializers["zero_point"])
    assert zero_point.dtype == zero_point_type
    x = wide_input()
    np.testing.assert_allclose(
        run_onnx(model, x)[0], run_function(module, [x])[0], rtol=0, atol=1e-6
    )
    reimported = import_model(model)
    assert (
        len(ops_of(reimported, QuantizeOp))
        == len(ops_of(reimported, DequantizeOp))
        == 1
    )


def test_16_bit_fake_quant_exports_with_opset_21():
    props = "min = array<f32: -2.0>, max = array<f32: 3.0>, num_bits = 16"
    module = fake_quant_module(props, opset=21)
    model = export_module(module)
    x = wide_input()
    np.testing.assert_allclose(
        run_onnx(model, x)[0], run_function(module, [x])[0], rtol=0, atol=1e-6
    )
    with pytest.raises(FrontendError, match="16-bit QuantizeLinear needs opset 21"):
        export_module(fake_quant_module(props, opset=18))


def test_zero_range_cannot_be_exported():
    module = fake_quant_module(
        "min = array<f32: 0.0>, max = array<f32: 0.0>, num_bits = 8"
    )
    with pytest.raises(
        FrontendError,
        match="a range with min >= max or a non-finite bound has no scale",
    ):
        export_module(module)
