"""The nn dialect: a framework-neutral dialect for inference graphs (and the
batch statistics and gradient kernels of training graphs)."""

from xdsl.ir import Dialect

from graph_opt.dialects.nn.attention import AttentionOp
from graph_opt.dialects.nn.compare import COMPARE_OPS
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp, ConvTransposeOp
from graph_opt.dialects.nn.detection import DETECTION_OPS
from graph_opt.dialects.nn.device_copy import DEVICE_COPY_OPS
from graph_opt.dialects.nn.elementwise import ELEMENTWISE_OPS
from graph_opt.dialects.nn.fused import FUSED_OPS
from graph_opt.dialects.nn.index_ops import INDEX_OPS
from graph_opt.dialects.nn.linalg import LINALG_OPS
from graph_opt.dialects.nn.norm import BatchNormOp, LayerNormOp, SoftmaxOp
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.pool import POOL_OPS
from graph_opt.dialects.nn.pool_grad import POOL_GRAD_OPS
from graph_opt.dialects.nn.qint import QINT_OPS
from graph_opt.dialects.nn.qpool import QPOOL_OPS
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.quant_training import QUANT_TRAINING_OPS
from graph_opt.dialects.nn.reduce import REDUCE_OPS
from graph_opt.dialects.nn.resize import RESIZE_OPS
from graph_opt.dialects.nn.shape_ops import SHAPE_OPS
from graph_opt.dialects.nn.tensor_ops import TENSOR_OPS
from graph_opt.dialects.nn.training import TRAINING_OPS
from graph_opt.dialects.nn.types import NN_TYPES

NN = Dialect(
    "nn",
    [
        ConstantOp,
        ConvOp,
        ConvTransposeOp,
        BatchNormOp,
        LayerNormOp,
        SoftmaxOp,
        AttentionOp,
        *LINALG_OPS,
        *POOL_OPS,
        *REDUCE_OPS,
        OpaqueOp,
        *ELEMENTWISE_OPS,
        *COMPARE_OPS,
        *SHAPE_OPS,
        *TENSOR_OPS,
        *FUSED_OPS,
        FakeQuantOp,
        *QUANT_TRAINING_OPS,
        *QINT_OPS,
        *QPOOL_OPS,
        *INDEX_OPS,
        *DETECTION_OPS,
        *RESIZE_OPS,
        *DEVICE_COPY_OPS,
        *TRAINING_OPS,
        *POOL_GRAD_OPS,
    ],
    NN_TYPES,
)
