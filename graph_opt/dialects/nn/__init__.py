"""The nn dialect: a framework-neutral dialect for inference graphs."""

from xdsl.ir import Dialect

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import ELEMENTWISE_OPS
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp

NN = Dialect(
    "nn",
    [ConstantOp, ConvOp, BatchNormOp, ReshapeOp, OpaqueOp, *ELEMENTWISE_OPS],
    [],
)
