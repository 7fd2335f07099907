"""ONNX <-> nn mappings, one module per op family (control_flow is imported
when first needed: see `onnx_op_table.LATER_MAPPINGS`)."""

from graph_opt.frontend.onnx_mappings import (  # noqa: F401
    attention,
    compare,
    constant,
    conv,
    detection,
    elementwise,
    fused,
    index_ops,
    linalg,
    norm,
    pool,
    qint,
    quant,
    reduce,
    resize,
    shape_ops,
    tensor_ops,
)
