"""TensorFlow -> nn mappings, one module per op family."""

from graph_opt.frontend.tensorflow.mappings import (  # noqa: F401
    basic,
    compare,
    conv,
    elementwise,
    fake_quant,
    linalg,
    norm,
    pad,
    pool,
    reduce,
    shape_ops,
    strided_slice,
    tensor_ops,
)
