"""TVM's TOpPattern kinds of nn ops, from their classes (and a few names)."""

from __future__ import annotations

from enum import IntEnum

from xdsl.ir import Operation

from graph_opt.dialects.nn.elementwise import ElementwiseBinaryOp, ElementwiseUnaryOp
from graph_opt.dialects.nn.reduce import AxesReduction


class OpKind(IntEnum):
    """TVM's TOpPattern, in its order: each kind fuses like those before it."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    OPAQUE = 8


_BY_NAME = {
    "nn.cast": OpKind.ELEMWISE,
    "nn.select": OpKind.BROADCAST,
    **dict.fromkeys(
        (
            "nn.reshape nn.flatten nn.squeeze nn.unsqueeze nn.transpose nn.concat "
            "nn.split nn.slice nn.gather nn.gather_nd nn.gather_elements nn.pad nn.tile nn.one_hot"
        ).split(),
        OpKind.INJECTIVE,
    ),
    **dict.fromkeys(
        (
            "nn.conv nn.conv_transpose nn.fused_conv nn.qconv nn.qconv_transpose nn.matmul "
            "nn.gemm "
            "nn.fused_matmul nn.qmatmul nn.max_pool nn.avg_pool nn.global_avg_pool"
        ).split(),
        OpKind.OUT_ELEMWISE_FUSABLE,
    ),
}


def op_kind(op: Operation) -> OpKind:
    """The kind of `op`: elementwise and broadcast ops and reductions by class."""
    if isinstance(op, ElementwiseUnaryOp):
        return OpKind.ELEMWISE
    if isinstance(op, ElementwiseBinaryOp):
        return OpKind.BROADCAST
    if isinstance(op, AxesReduction):
        return OpKind.COMM_REDUCE
    return _BY_NAME.get(op.name, OpKind.OPAQUE)
