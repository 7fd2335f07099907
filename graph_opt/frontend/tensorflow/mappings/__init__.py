"""TensorFlow -> nn mappings, one module per op family."""

from graph_opt.frontend.tensorflow.mappings import (  # noqa: F401
    basic,
    conv,
    elementwise,
    linalg,
    norm,
    pool,
    reduce,
    shape_ops,
)
