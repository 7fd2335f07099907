"""TensorFlow -> nn mappings, one module per op family."""

from graph_opt.frontend.tensorflow.mappings import (  # noqa: F401
    basic,
    compare,
    conv,
    einsum,
    elementwise,
    fake_quant,
    gradients,
    index_ops,
    linalg,
    norm,
    pad,
    pool,
    reduce,
    resize,
    shape_ops,
    space_batch,
    state,
    strided_slice,
    tensor_list,
    tensor_ops,
)
