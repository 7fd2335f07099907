"""TensorFlow -> nn mappings, one module per op family."""

from graph_opt.formats.tensorflow.mappings import (
    basic,  # noqa: F401
    compare,  # noqa: F401
    conv,  # noqa: F401
    einsum,  # noqa: F401
    elementwise,  # noqa: F401
    fake_quant,  # noqa: F401
    gradients,  # noqa: F401
    index_ops,  # noqa: F401
    linalg,  # noqa: F401
    norm,  # noqa: F401
    pad,  # noqa: F401
    pool,  # noqa: F401
    pool_grad,  # noqa: F401
    reduce,  # noqa: F401
    resize,  # noqa: F401
    shape_ops,  # noqa: F401
    space_batch,  # noqa: F401
    state,  # noqa: F401
    strided_slice,  # noqa: F401
    tensor_array,  # noqa: F401
    tensor_list,  # noqa: F401
    tensor_ops,  # noqa: F401
)
