"""Why convert-to-int would leave a conv or matrix product float, read on the
fake-quantized graph before the conversion (the weights' fake quantizations
are folded away by it)."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from graph_opt.dialects.nn.elementwise import AddOp, ClipOp, IdentityOp, ReluOp
from graph_opt.dialects.nn.linalg import GemmOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.tensor_ops import ConcatOp, PadOp
from graph_opt.passes.common.quantize_patterns import weight_operand
from graph_opt.passes.convert_to_int.params import int_weights
from graph_opt.passes.convert_to_int.patterns import SCALE_PRESERVING, weight_constant

INT8_CARRIERS = (*SCALE_PRESERVING, PadOp, ConcatOp)
"""Ops that carry an int8 value from a fake quantization to the layer."""
OUTPUT_STEPS = (AddOp, ReluOp, ClipOp, IdentityOp)
"""Ops between a layer and the fake quantization of its output (bias, activation)."""


def float_reason(op: Operation) -> str:
    """Why `op` (a conv, matmul or gemm) cannot become int8, as far as the
    fake-quantized graph tells; a generic reason when it looks convertible."""
    spec = weight_operand(op)
    if spec is None:
        return "its weights are not a constant operand"
    index, axis = spec
    found = weight_constant(op.operands[index])
    if found is None:
        return "its weights have no fake quantization of constants"
    fq, weights = found
    if fq.bits > 8:
        return (
            f"its weights are fake-quantized to {fq.bits} bits (int8 needs 8 or fewer)"
        )
    if int_weights(fq, weights, axis % weights.ndim) is None:
        return (
            "its per-channel weight ranges have different zero points (TOSA takes "
            "one): quantize{symmetric=true}"
        )
    if isinstance(op, GemmOp) and op.trans_a is not None and op.trans_a.value.data:
        return "a gemm with a transposed input has no int8 form"
    if not _reaches_fake_quant_backwards(op.operands[0]):
        return "its input has no fake quantization"
    if not _reaches_fake_quant_forwards(op.results[0]):
        return "its result has no fake quantization (no output scale)"
    return "a requantization scale has no int32 multiplier and shift, or a bias is not constant"


def _reaches_fake_quant_backwards(value: SSAValue) -> bool:
    while isinstance(value.owner, INT8_CARRIERS):
        value = value.owner.operands[0]
    return isinstance(value.owner, FakeQuantOp)


def _reaches_fake_quant_forwards(value: SSAValue) -> bool:
    while (user := value.get_user_of_unique_use()) is not None:
        if isinstance(user, FakeQuantOp):
            return True
        if not isinstance(user, OUTPUT_STEPS):
            return False
        value = user.results[0]
    return False
