"""ONNX <-> nn mappings, one module per op family (control_flow is imported
when first needed: see `onnx_op_table.LATER_MAPPINGS`)."""

from graph_opt.formats.onnx.mappings import (
    attention,  # noqa: F401
    compare,  # noqa: F401
    constant,  # noqa: F401
    conv,  # noqa: F401
    detection,  # noqa: F401
    elementwise,  # noqa: F401
    fused,  # noqa: F401
    index_ops,  # noqa: F401
    linalg,  # noqa: F401
    norm,  # noqa: F401
    pool,  # noqa: F401
    qint,  # noqa: F401
    quant,  # noqa: F401
    reduce,  # noqa: F401
    resize,  # noqa: F401
    shape_ops,  # noqa: F401
    tensor_ops,  # noqa: F401
)
