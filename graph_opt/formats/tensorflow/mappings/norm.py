"""Batch norm (FusedBatchNorm, V2, V3): inference (only output 0, the normalized
data) and training mode (is_training, the default): nn.batch_norm_training,
whose batch statistics are outputs 1 and 2 and whose saved ones are the
reserve spaces that FusedBatchNormGrad reads; a `_gradient_op_type` (the
gradient TensorFlow registers instead) is kept for the GraphDef export."""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr

from graph_opt.dialects.effects import GRADIENT_OP_TYPE_ATTR
from graph_opt.dialects.nn.base import f32_attr, str_attr
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.dialects.nn.training import BatchNormTrainingOp
from graph_opt.formats.tensorflow.mappings.layouts import data_layout
from graph_opt.formats.tensorflow.op_table import importer


@importer("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def import_fused_batch_norm(b, node, inputs):
    props = {
        "epsilon": f32_attr(b.attr("epsilon", 1e-4)),
        "data_layout": str_attr(data_layout(b)),
    }
    if not b.attr("is_training", True):
        return [b.create(BatchNormOp, inputs[:5], props).results[0]]
    props["exponential_avg_factor"] = f32_attr(b.attr("exponential_avg_factor", 1.0))
    op = b.create(BatchNormTrainingOp, inputs[:5], props)
    gradient = b.attr("_gradient_op_type", None)
    if gradient is not None:  # contrib/quantize's folded batch norm
        op.attributes[GRADIENT_OP_TYPE_ATTR] = StringAttr(gradient)
    output, mean, variance, saved_mean, saved_variance = op.results
    # reserve_space_3 (V3) is scratch that only the gradient kernel reads
    return [output, mean, variance, saved_mean, saved_variance, saved_variance]
