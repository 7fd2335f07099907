"""Refusing inputs whose dtype or shape contradicts a function's argument types,
as onnxruntime refuses them: the interpreter would otherwise cast the values and
run the graph on a shape it was not built for."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.utils.exceptions import InterpretationError

from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.names import argument_names, dim_names_of
from graph_opt.interpreter.runner import check_no_float_codes


def check_input_types(function: func.FuncOp, inputs: Mapping[str, object]) -> None:
    """Each input names an argument and has its dtype, rank and static dims, and
    the dims sharing a symbolic name (ONNX dim_param) have one size."""
    names = argument_names(function)
    unknown = [name for name in inputs if name not in names]
    if unknown:
        raise InterpretationError(
            f"no input named '{unknown[0]}' (the model's inputs: {', '.join(names)})"
        )
    given = [inputs.get(name) for name in names]
    check_no_float_codes(function, [v for v in given if v is not None])
    arg_types = function.function_type.inputs.data
    symbolic = dim_names_of(function.arg_attrs, len(names))
    sizes: dict[str, tuple[int, str, int]] = {}
    for name, value, declared, dims in zip(names, given, arg_types, symbolic):
        if value is None or not isinstance(declared, TensorType):
            continue
        array = np.asarray(value)
        if not _same_dtype(array.dtype, declared) or not _fits(array.shape, declared):
            raise InterpretationError(
                f"input {name}: given {array.dtype} of shape {tuple(array.shape)}, "
                f"the model declares {declared}"
            )
        for index, dim in enumerate(dims):
            if not dim:
                continue
            size = array.shape[index]
            first = sizes.setdefault(dim, (size, name, index))
            if first[0] != size:
                raise InterpretationError(
                    f"input {name}: dim {index} ('{dim}') is {size}, but input "
                    f"{first[1]}'s dim {first[2]} of the same name is {first[0]}"
                )


def _same_dtype(dtype: np.dtype, declared: TensorType) -> bool:
    try:
        expected = numpy_dtype(declared.element_type)
    except ValueError:  # strings, resources: no numpy dtype to compare
        return True
    return dtype == expected


def _fits(shape: tuple[int, ...], declared: TensorType) -> bool:
    static = declared.get_shape()
    return len(shape) == len(static) and all(
        want < 0 or want == got for want, got in zip(static, shape)
    )
