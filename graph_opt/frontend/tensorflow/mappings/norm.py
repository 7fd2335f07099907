"""Inference batch norm (FusedBatchNorm, V2, V3): only output 0, the normalized data."""

from __future__ import annotations

from graph_opt.dialects.nn.base import f32_attr, str_attr
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.frontend.tensorflow.mappings.layouts import data_layout
from graph_opt.frontend.tensorflow.op_table import importer


@importer("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def import_fused_batch_norm(b, node, inputs):
    if b.attr("is_training", True):
        b.decline("is_training=true (training-mode batch norm) is not supported")
    props = {
        "epsilon": f32_attr(b.attr("epsilon", 1e-4)),
        "data_layout": str_attr(data_layout(b)),
    }
    return [b.create(BatchNormOp, inputs[:5], props).results[0]]
