"""convert-to-int's int8 graphs for ONNX, in the QDQ format onnxruntime runs
with its int8 kernels: each integer layer becomes DequantizeLinear of its
int8 inputs, weights and int32 bias, the float op, and QuantizeLinear to the
output's recorded scale and zero point.

    nn.qconv -> nn.rescale -> nn.clip     DQ(x), DQ(w), DQ(b) -> Conv -> Clip -> Q
    nn.qconv -> nn.dequantize -> float    ConvInteger (+ Add bias) -> DQ -> float (as is)
    nn.qmatmul (+ bias) -> nn.rescale     DQ(x), DQ(w), DQ(b) -> Gemm -> Q
    widen, widen -> nn.add -> nn.rescale  DQ(a), DQ(b) -> Add -> Q
    widen -> nn.reduce_sum -> nn.rescale  DQ(x) -> ReduceMean -> Q
    nn.qavg_pool                          DQ(x) -> AveragePool -> Q
    int8 max pool, reshape, concat, ...   DQ -> the op -> Q (the same scale)

onnxruntime fuses the patterns into QLinearConv, QGemm, QLinearAdd, ...,
which requantize through a float32 scale (input x weight / output) and round
half to even, where nn.rescale multiplies by a 31-bit fixed-point
multiplier and rounds half up: the two agree but for accumulators within
about 2^-22 of a step from a rounding tie, and at exact ties."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import dce

from graph_opt.dialects.nn.base import f32_attr, float_value, i64_attr
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import AddOp, ClipOp
from graph_opt.dialects.nn.linalg import GemmOp
from graph_opt.dialects.nn.pool import AvgPoolOp, MaxPoolOp
from graph_opt.dialects.nn.qint import (
    DequantizeOp,
    QConvOp,
    QMatMulOp,
    QuantizeOp,
    RescaleOp,
    quantization_props,
)
from graph_opt.dialects.nn.qpool import QAvgPoolOp
from graph_opt.dialects.nn.reduce import ReduceMeanOp, ReduceSumOp
from graph_opt.dialects.nn.shape_ops import FlattenOp, ReshapeOp, SqueezeOp, UnsqueezeOp
from graph_opt.dialects.nn.shapes import ranked, tensor_type
from graph_opt.dialects.nn.tensor_ops import ConcatOp, PadOp, TransposeOp
from graph_opt.entry import entry_function
from graph_opt.formats.errors import FrontendError
from graph_opt.quantization.boundary import QUANTIZATION_ATTR
from graph_opt.quantization.tensor_quantization import (
    TensorQuantization,
    quantization_of_dict,
    recorded_quantization,
)

INTEGER_OPS = (QConvOp, QMatMulOp, RescaleOp, QAvgPoolOp)
SAME_SCALE_OPS = (
    MaxPoolOp, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, TransposeOp, ConcatOp,
    PadOp, ClipOp,
)  # fmt: skip
CONV_PROPS = ("strides", "pads", "dilations", "group", "auto_pad", "data_layout")


def has_integer_ops(ops: Iterable[Operation]) -> bool:
    # per op class, not per op: isinstance against ABCs costs ~1 us
    return any(issubclass(kind, INTEGER_OPS) for kind in {type(op) for op in ops})


def qdq_copy(module: ModuleOp) -> ModuleOp:
    """A copy of the module with its integer layers in the QDQ format."""
    copy = module.clone()
    function = entry_function(copy)
    done: set[Operation] = set()
    for op in list(function.body.block.ops):
        if op not in done:  # (not the rest of a layer already rewritten)
            _rewrite(op, done)
    dce(copy)
    return copy


class _Builder:
    """New ops inserted before `anchor`; `done`: the old ops they replace."""

    def __init__(self, anchor: Operation, done: set[Operation]):
        self.anchor = anchor
        self.done = done

    def add(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op.results[0]

    def dequantized(self, value: SSAValue) -> SSAValue:
        q = quantization(value)
        props = quantization_props(q.scales, [q.zero_point] * len(q.scales), q.axis)
        return self.add(DequantizeOp.create_inferred([value], props))

    def quantized(
        self, value: SSAValue, like: SSAValue, q: TensorQuantization
    ) -> SSAValue:
        t = ranked(like)
        assert t is not None
        props = quantization_props(q.scales, [q.zero_point])
        return self.add(QuantizeOp.create_inferred([value], props, [t]))


def quantization(value: SSAValue) -> TensorQuantization:
    """The recorded scale and zero point of an int8 value (or an int32 bias's)."""
    owner = value.owner
    if isinstance(owner, QuantizeOp):
        return TensorQuantization(owner.scales, int(owner.zero_points[0]))
    if isinstance(owner, Operation):
        found = recorded_quantization(owner)
    else:
        function = owner.parent_op()
        attrs = function.arg_attrs  # type: ignore[union-attr]
        entry = attrs.data[value.index].data.get(QUANTIZATION_ATTR) if attrs else None
        found = quantization_of_dict(entry) if entry is not None else None  # type: ignore[arg-type]
    if found is None:
        raise FrontendError(
            f"cannot export {value.owner.name if isinstance(value.owner, Operation) else 'an argument'} "
            "to ONNX: an int8 value without a recorded scale (convert-to-int records them)"
        )
    return found


def _int8(value: SSAValue) -> bool:
    t = ranked(value)
    return (
        t is not None
        and isinstance(t.element_type, IntegerType)
        and t.element_type.width.data == 8
    )


def _sole_user(value: SSAValue) -> Operation | None:
    users = [use.operation for use in value.uses]
    return users[0] if len(users) == 1 else None


def _finish(b: _Builder, acc: SSAValue, y: SSAValue) -> None:
    """Replace the rescale that alone reads the i32 `acc` (per channel along
    the last dim: between transposes) and the clamp after it by
    Clip(y) -> QuantizeLinear."""
    rescale = _sole_user(acc)
    moved = isinstance(rescale, TransposeOp)
    if moved:
        b.done.add(rescale)  # type: ignore[arg-type]
        rescale = _sole_user(rescale.results[0])
    if not isinstance(rescale, RescaleOp):
        raise FrontendError(
            f"cannot export {acc.owner.name} to ONNX: its i32 result is not "  # type: ignore[union-attr]
            "rescaled to int8 alone (no QDQ form)"
        )
    final: Operation = rescale
    if moved and isinstance(after := _sole_user(final.results[0]), TransposeOp):
        b.done.add(final)
        final = after
    if isinstance(after := _sole_user(final.results[0]), ClipOp):
        b.done.add(final)
        final = after
    b.done.add(final)
    q = recorded_quantization(final) or recorded_quantization(rescale)
    if q is None:
        raise FrontendError(
            "cannot export nn.rescale to ONNX: no recorded output scale"
        )
    if isinstance(final, ClipOp):
        y = b.add(_float_clip(final, y, q))
    out = b.quantized(y, final.results[0], q)
    final.results[0].replace_all_uses_with(out)


def _float_clip(clip: Operation, y: SSAValue, q: TensorQuantization) -> ClipOp:
    """The clamp to int8 levels as a float Clip before QuantizeLinear (exact:
    quantization is monotonic and maps each bound to its level)."""
    scale = float(q.scales[0])
    low = (float_value(clip.properties, "min", -128) - q.zero_point) * scale
    high = (float_value(clip.properties, "max", 127) - q.zero_point) * scale
    return ClipOp.create_inferred([y], {"min": f32_attr(low), "max": f32_attr(high)})


def _bias(
    b: _Builder, bias: SSAValue, x_scale: float, w: TensorQuantization
) -> SSAValue:
    scales = (np.float64(x_scale) * w.scales.astype(np.float64)).astype(np.float32)
    axis = 0 if len(scales) > 1 else None
    props = quantization_props(scales, [0] * len(scales), axis)
    return b.add(DequantizeOp.create_inferred([bias], props))


def _rewrite(op: Operation, done: set[Operation]) -> None:
    if isinstance(op, QConvOp | QMatMulOp) and _dequantized(op.results[0]):
        return  # exported as is: ConvInteger / MatMulInteger, DequantizeLinear
    b = _Builder(op, done)
    if isinstance(op, QConvOp):
        x, w, *bias = op.operands
        operands = [b.dequantized(x), b.dequantized(w)]
        if bias:
            operands.append(
                _bias(b, bias[0], float(quantization(x).scales[0]), quantization(w))
            )
        props = {k: op.properties[k] for k in CONV_PROPS if k in op.properties}
        _finish(b, op.output, b.add(ConvOp.create_inferred(operands, props)))
    elif isinstance(op, QMatMulOp):
        if len(ranked(op.lhs).get_shape()) != 2 or constant_value(op.rhs) is None:  # type: ignore[union-attr]
            raise FrontendError(
                "cannot export nn.qmatmul to ONNX: only 2-D x constant weights"
            )
        operands = [b.dequantized(op.lhs), b.dequantized(op.rhs)]
        acc = op.output
        users = [u.operation for u in acc.uses]
        if len(users) == 1 and isinstance(users[0], AddOp):
            add = users[0]
            b.anchor = add  # (after the bias constant)
            other = add.rhs if add.lhs == acc else add.lhs
            x_scale = float(quantization(op.lhs).scales[0])
            operands.append(_bias(b, other, x_scale, quantization(op.rhs)))
            acc = add.output
        _finish(b, acc, b.add(GemmOp.create_inferred(operands)))
    elif isinstance(op, AddOp) and _widened(op.lhs) and _widened(op.rhs):
        a, c = (b.dequantized(v.owner.input) for v in (op.lhs, op.rhs))  # type: ignore[union-attr]
        _finish(b, op.output, b.add(AddOp.create_inferred([a, c])))
    elif isinstance(op, ReduceSumOp) and _widened(op.operands[0]):
        x = b.dequantized(op.operands[0].owner.input)  # type: ignore[union-attr]
        _finish(
            b, op.output, b.add(ReduceMeanOp.create_inferred([x], dict(op.properties)))
        )
    elif isinstance(op, QAvgPoolOp):
        props = {
            k: v for k, v in op.properties.items() if k not in ("input_zp", "output_zp")
        }
        props["count_include_pad"] = i64_attr(0)
        y = b.add(AvgPoolOp.create_inferred([b.dequantized(op.operands[0])], props))
        _requantize_as(b, op, y)
    elif isinstance(op, RescaleOp) and _int8(op.input) and _int8(op.output):
        _requantize_as(b, op, b.dequantized(op.input))
    elif isinstance(op, SAME_SCALE_OPS) and _int8(op.results[0]):
        _same_scale(b, op)


def _dequantized(acc: SSAValue) -> bool:
    """Whether a float op reads the layer's accumulator through a dequantize
    (after the bias add of a matmul)."""
    user = _sole_user(acc)
    if isinstance(user, AddOp):
        user = _sole_user(user.output)
    return isinstance(user, DequantizeOp)


def _widened(value: SSAValue) -> bool:
    return isinstance(value.owner, RescaleOp) and _int8(value.owner.input)


def _requantize_as(b: _Builder, op: Operation, y: SSAValue) -> None:
    q = recorded_quantization(op) or quantization(op.operands[0])
    op.results[0].replace_all_uses_with(b.quantized(y, op.results[0], q))


def _same_scale(b: _Builder, op: Operation) -> None:
    """An int8 op that keeps its input's scale, on the dequantized values."""
    if isinstance(op, ClipOp):
        q = quantization(op.operands[0])
        y = b.add(_float_clip(op, b.dequantized(op.operands[0]), q))
        _requantize_as(b, op, y)
        return
    operands = [b.dequantized(v) if _int8(v) else v for v in op.operands]
    props = dict(op.properties)
    if isinstance(op, PadOp):
        props["value"] = f32_attr(0.0)  # the zero point's real value
    t = ranked(op.results[0])
    result = tensor_type(ranked(operands[0]).element_type, t.get_shape())  # type: ignore[union-attr]
    y = b.add(
        type(op).create(operands=operands, properties=props, result_types=[result])
    )
    _requantize_as(b, op, y)


def fold_weight_transposes(module: ModuleOp) -> None:
    """Transpose(DequantizeLinear(constant)), which moving to NCHW leaves on
    weights, as DequantizeLinear(transposed constant): the form onnxruntime
    fuses into its int8 kernels."""
    for op in list(module.walk()):
        if not isinstance(op, TransposeOp):
            continue
        deq = op.input.owner
        data = constant_value(deq.input) if isinstance(deq, DequantizeOp) else None
        if data is None or not deq.output.has_one_use():
            continue
        perm = TransposeOp.permutation(op.properties, data.ndim)
        axis = deq.channel_axis(data.ndim)
        moved = ConstantOp.from_array(np.ascontiguousarray(data.transpose(perm)))
        props = quantization_props(
            deq.scales, deq.zero_points, None if axis is None else perm.index(axis)
        )
        new = DequantizeOp.create_inferred([moved.output], props)
        Rewriter.insert_op([moved, new], InsertPoint.before(op))
        op.output.replace_all_uses_with(new.output)
        Rewriter.erase_op(op)
        Rewriter.erase_op(deq)
