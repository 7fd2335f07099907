"""QDQ format: QuantizeLinear -> DequantizeLinear pairs <-> nn.fake_quant.

A pair with constant, equal scales and zero points is one fake quantization:
its integer type's levels [tmin, tmax] become the range
[(tmin - zp) * scale, (tmax - zp) * scale], whose nudged scale and zero point
are the pair's. Pairs are found after import (`fold_qdq_pairs`), since the
quantized value between them may have other users; a lone QuantizeLinear or
DequantizeLinear stays nn.opaque.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import Rewriter

from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.quant import FakeQuantOp, fake_quant_props
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.frontend.onnx_op_table import exporter
from graph_opt.quantization.fake_quant_math import nudge, quant_range

INTEGER_TYPES = {
    np.dtype(np.int8): 8,
    np.dtype(np.uint8): 8,
    np.dtype(np.int16): 16,
    np.dtype(np.uint16): 16,
}
"""Zero-point types of a QDQ pair that nn.fake_quant models, with their bit width."""


def fold_qdq_pairs(block: Block) -> None:
    """Replace each DequantizeLinear of a matching QuantizeLinear by nn.fake_quant
    (run on the imported block, return included, so every use is known)."""
    for op in list(block.ops):
        if type(op) is not OpaqueOp or not _is_onnx(op, "DequantizeLinear"):
            continue
        fake_quant = _fake_quant_of_pair(op)
        if fake_quant is None:
            continue
        quantize = op.operands[0].owner
        fake_quant.location = op.location
        fake_quant.results[0].name_hint = op.results[0].name_hint
        Rewriter.replace_op(op, fake_quant)
        if not quantize.results[0].uses:
            Rewriter.erase_op(quantize)


def _is_onnx(op: Operation, op_type: str) -> bool:
    return (
        isinstance(op, OpaqueOp)
        and op.op_type.data == op_type
        and op.domain is None
        and op.serialized_attrs is None
        and op.absent_inputs is None
    )


def _attr(op: OpaqueOp, name: str, default: int) -> int:
    attrs = op.attrs.data if op.attrs is not None else {}
    return attrs[name].value.data if name in attrs else default  # type: ignore[union-attr]


def _scale_and_zero_point(op: OpaqueOp) -> tuple[np.ndarray, np.ndarray] | None:
    """The constant scale and zero point of a Q or DQ node (all attributes known)."""
    known = {"axis", "saturate"} if op.op_type.data == "QuantizeLinear" else {"axis"}
    attrs = op.attrs.data if op.attrs is not None else {}
    if len(op.operands) != 3 or set(attrs) - known:
        return None  # no zero point (type from output_dtype), or block quantization
    scale, zero_point = (constant_value(v) for v in op.operands[1:])
    if scale is None or zero_point is None or scale.shape != zero_point.shape:
        return None
    return scale, zero_point


def _fake_quant_of_pair(dequantize: OpaqueOp) -> FakeQuantOp | None:
    quantize = dequantize.operands[0].owner
    if not _is_onnx(quantize, "QuantizeLinear") or len(dequantize.operands) < 2:
        return None
    pair = [_scale_and_zero_point(quantize), _scale_and_zero_point(dequantize)]
    if None in pair:
        return None
    (scale, zero_point), (dq_scale, dq_zero_point) = pair
    if (
        zero_point.dtype not in INTEGER_TYPES
        or scale.dtype != np.float32
        or not np.array_equal(scale, dq_scale)
        or not np.array_equal(zero_point, dq_zero_point)
        or dq_zero_point.dtype != zero_point.dtype
        or not (scale > 0).all()
        or scale.ndim > 1
    ):
        return None
    x = quantize.operands[0]
    axis = _channel_axis(quantize, dequantize, x, scale)
    if axis is False:
        return None
    info = np.iinfo(zero_point.dtype)
    offsets = zero_point.astype(np.float64).ravel()
    step = scale.astype(np.float64).ravel()
    props = fake_quant_props(
        (info.min - offsets) * step,
        (info.max - offsets) * step,
        INTEGER_TYPES[zero_point.dtype],
        axis=axis,
    )
    return FakeQuantOp.create_inferred([x], props, [dequantize.results[0].type])


def _channel_axis(quantize, dequantize, x: SSAValue, scale: np.ndarray):
    """None per tensor, the normalized axis per channel, False if not expressible."""
    if scale.ndim == 0:
        return None
    axis = _attr(quantize, "axis", 1)
    x_type = ranked(x)
    if axis != _attr(dequantize, "axis", 1) or x_type is None:
        return False
    rank = len(x_type.get_shape())
    if not -rank <= axis < rank:
        return False
    return axis % rank


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
    if (nudged.scale == 0).any():
        e.unsupported(op, "a (0, 0) range has no scale")
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
