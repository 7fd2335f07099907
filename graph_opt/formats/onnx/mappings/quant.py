"""QDQ format: ONNX QuantizeLinear / DequantizeLinear <-> nn.quantize / nn.dequantize,
and nn.fake_quant exported as a QuantizeLinear -> DequantizeLinear pair.

A QuantizeLinear or DequantizeLinear with a constant float32 scale and a
constant zero point (or none) imports as nn.quantize / nn.dequantize with
that exact scale, zero point and integer type, so a QDQ model (onnxruntime's
`quantize_static`) comes back bit-exact; any other stays nn.opaque, run by
onnx's reference evaluator.
"""

from __future__ import annotations

import numpy as np
import onnx
from xdsl.dialects.builtin import AnyFloat, UnrankedTensorType
from xdsl.ir import Attribute, SSAValue

from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.dtypes import element_type, numpy_dtype
from graph_opt.dialects.nn.qint import DequantizeOp, QuantizeOp, quantization_props
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.shapes import ranked, tensor_type
from graph_opt.formats.onnx.op_table import exporter, importer
from graph_opt.quantization.fake_quant_math import nudge, quant_range

QUANTIZED_TYPES = frozenset(
    np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32)
)
"""Integer types nn.quantize / nn.dequantize hold (int32 only dequantizes: biases)."""
KNOWN_ATTRS = {"QuantizeLinear": {"axis", "saturate"}, "DequantizeLinear": {"axis"}}
"""Attributes whose every value the nn ops model (block_size only at 0)."""


@importer("QuantizeLinear", "DequantizeLinear")
def import_quantization(b, node, inputs):
    params = _constant_params(b, node, inputs)
    if params is None:
        return None
    scale, zero_point, axis = params
    props = quantization_props(scale.ravel(), zero_point.ravel(), axis)
    x = inputs[0]
    if node.op_type == "DequantizeLinear":
        return b.create(DequantizeOp, [x], props)
    result_type = _quantized_type(x, element_type(zero_point.dtype))
    return b.insert(QuantizeOp.create_inferred([x], props, [result_type]))


def _constant_params(b, node, inputs):
    """(scale, zero point, axis or None) when the nn ops express the node exactly."""
    attrs = b.attrs(node)
    if set(attrs) - KNOWN_ATTRS[node.op_type] - {"block_size", "output_dtype"}:
        return None
    if attrs.get("block_size", 0) != 0 or None in inputs[:2]:
        return None
    x, scale = inputs[0], b.constant_value(inputs[1])
    zero_point = b.constant_value(inputs[2]) if len(inputs) > 2 and inputs[2] else None
    if scale is None or scale.dtype != np.float32 or scale.ndim > 1:
        return None
    if not (np.isfinite(scale) & (scale > 0)).all():
        return None
    if zero_point is None:
        if len(inputs) > 2 and inputs[2] is not None:
            return None  # a computed zero point
        dtype = _default_zero_point_type(b, node, x)
        if dtype is None:
            return None
        zero_point = np.zeros(scale.shape, dtype)
    if scale.size == 1 and zero_point.size == 1:  # onnxruntime: per tensor
        scale, zero_point = scale.reshape(()), zero_point.reshape(())
    if zero_point.dtype not in QUANTIZED_TYPES or zero_point.shape != scale.shape:
        return None
    element = getattr(x.type, "element_type", None)
    if node.op_type == "QuantizeLinear":
        if zero_point.dtype == np.int32 or not isinstance(element, AnyFloat):
            return None
    elif element is None or _dtype_of(element) != zero_point.dtype:
        return None
    if "output_dtype" in attrs and attrs["output_dtype"] not in (
        0,
        _onnx_type(zero_point),
    ):
        return None
    if scale.ndim == 0:
        return scale, zero_point, None
    if b.opset < 13:
        return None  # per-axis quantization came with opset 13
    return scale, zero_point, attrs.get("axis", 1)


def _default_zero_point_type(b, node, x: SSAValue) -> np.dtype | None:
    """The integer type of a node without a zero point: output_dtype, the
    input's type (DequantizeLinear), else uint8."""
    output_dtype = b.attrs(node).get("output_dtype")
    if output_dtype:
        return onnx.helper.tensor_dtype_to_np_dtype(output_dtype)
    if node.op_type == "DequantizeLinear":
        return _dtype_of(getattr(x.type, "element_type", None))
    return np.dtype(np.uint8)


def _dtype_of(element: Attribute | None) -> np.dtype | None:
    try:
        return None if element is None else numpy_dtype(element)
    except ValueError:
        return None


def _onnx_type(array: np.ndarray) -> int:
    return onnx.helper.np_dtype_to_tensor_dtype(array.dtype)


def _quantized_type(x: SSAValue, integer: Attribute) -> Attribute:
    x_type = ranked(x)
    if x_type is None:
        return UnrankedTensorType(integer)
    return tensor_type(integer, x_type.get_shape())


@exporter(FakeQuantOp)
def export_fake_quant(e, op: FakeQuantOp):
    """QuantizeLinear + DequantizeLinear on the nudged range.

    Levels map to int8 (level - 128) when the range is narrow or symmetric
    (zero point 128), else to uint8 (16 bits: int16 / uint16). Where the
    integer type has more levels than the fake quantization (narrow range,
    fewer bits), the input is first clamped to the nudged range: a constant
    is clamped in place, anything else by Max and Min nodes.
    """
    bits = op.bits
    if e.opset < 10 or (op.axis is not None and e.opset < 13):
        e.unsupported(op, f"QuantizeLinear needs a newer opset than {e.opset}")
    if e.numpy_dtype(op.input) != np.float32:
        e.unsupported(op, "only float32 tensors export as QuantizeLinear")
    if bits > 8 and e.opset < 21:
        e.unsupported(op, f"{bits}-bit QuantizeLinear needs opset 21, not {e.opset}")
    nudged = nudge(op.mins, op.maxs, bits, op.is_narrow)
    if not (np.isfinite(nudged.scale) & (nudged.scale > 0)).all():
        e.unsupported(op, "a range with min >= max or a non-finite bound has no scale")
    storage_bits = 8 if bits <= 8 else 16
    middle = 1 << (storage_bits - 1)
    signed = op.is_narrow or bool((nudged.zero_point == middle).all())
    dtype = np.dtype(f"{'int' if signed else 'uint'}{storage_bits}")
    zero_point = nudged.zero_point - (middle if signed else 0)
    x = op.input
    if quant_range(bits, op.is_narrow) != (0, (1 << storage_bits) - 1):
        x = _clamped(e, op, nudged.min, nudged.max)
    per_tensor = op.axis is None
    scale = nudged.scale[0] if per_tensor else nudged.scale
    zero_point = zero_point[0] if per_tensor else zero_point
    names = [e.initializer(np.asarray(scale, np.float32), "scale"),
             e.initializer(np.asarray(zero_point).astype(dtype), "zero_point")]  # fmt: skip
    attrs = {} if per_tensor else {"axis": op.axis_value}
    quantized = e.fresh("quantized")
    e.node("QuantizeLinear", [x, *names], [quantized], attrs)
    e.node("DequantizeLinear", [quantized, *names], [op.output], attrs)


def _clamped(e, op: FakeQuantOp, low: np.ndarray, high: np.ndarray) -> SSAValue | str:
    """The input clamped to [low, high] (per channel along the op's axis)."""
    x = op.input
    x_type = ranked(x)
    if x_type is None:
        e.unsupported(op, "clamping to the nudged range needs a ranked input")
    rank = len(x_type.get_shape())  # type: ignore[union-attr]
    shape = (
        ()
        if op.axis is None
        else tuple(-1 if i == op.axis_value else 1 for i in range(rank))
    )
    low, high = low.reshape(shape), high.reshape(shape)
    value = constant_value(x)
    if value is not None:
        clamped = np.clip(value, low, high)
        return (
            x if np.array_equal(clamped, value) else e.initializer(clamped, "clamped")
        )
    raised = e.fresh("clamped_low")
    e.node("Max", [x, e.initializer(low, "range_min")], [raised])
    clamped_name = e.fresh("clamped")
    e.node("Min", [raised, e.initializer(high, "range_max")], [clamped_name])
    return clamped_name
