"""`--input-shape NAME=D0,D1,...` on an ONNX model: fix the dims of graph inputs.

Exporters leave the batch (and sequence) dims of inputs symbolic; passes that
need static shapes (lower-to-tosa) take them from here, as a TensorFlow
placeholder's shape is given.
"""

from __future__ import annotations

import onnx

from graph_opt.formats.errors import FrontendError


def fix_input_shapes(model: onnx.ModelProto, shapes: dict[str, list[int]]) -> None:
    """Set each named graph input's dims to the given sizes (a static dim must agree)."""
    initializers = {i.name for i in model.graph.initializer}
    inputs = {i.name: i for i in model.graph.input if i.name not in initializers}
    for name, sizes in shapes.items():
        if name not in inputs:
            raise FrontendError(
                f"--input-shape names '{name}', not an input of the model "
                f"(inputs: {', '.join(inputs) or 'none'})"
            )
        tensor = inputs[name].type.tensor_type
        dims = tensor.shape.dim
        if tensor.HasField("shape") and len(dims) != len(sizes):
            raise FrontendError(
                f"--input-shape {name}: {len(sizes)} dims given, the input has {len(dims)}"
            )
        for index, size in enumerate(sizes):
            if size < 0:
                raise FrontendError(f"--input-shape {name}: dim {index} is negative")
            if index < len(dims) and dims[index].HasField("dim_value"):
                if dims[index].dim_value != size:
                    raise FrontendError(
                        f"--input-shape {name}: dim {index} is {dims[index].dim_value} "
                        f"in the model, not {size}"
                    )
        tensor.shape.ClearField("dim")
        for size in sizes:
            tensor.shape.dim.add().dim_value = size
