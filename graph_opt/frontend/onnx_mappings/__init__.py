"""ONNX <-> nn mappings, one module per op family."""

from graph_opt.frontend.onnx_mappings import (  # noqa: F401
    constant,
    control_flow,
    conv,
    elementwise,
    fused,
    linalg,
    norm,
    pool,
    qint,
    quant,
    reduce,
    shape_ops,
    tensor_ops,
)
