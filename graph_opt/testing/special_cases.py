"""One-node models of the ONNX operators graph-opt maps to first-class `nn`
ops, with inputs over the whole value space (`special_values.py`) and
non-default attributes (`special_generators.py`).

Each generator draws through a pick (`integer`, `real`, `choice`, and
`array(dtype, shape, kind)`): `special_values.RandomPick` for
`bench/special_values.py`, one over hypothesis in the tests.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import helper, numpy_helper

from graph_opt.testing import special_generators as g
from graph_opt.testing.opaque_differential import Case
from graph_opt.testing.opaque_variants import one_node
from graph_opt.testing.special_generators import (
    BINARY,
    INTEGER_BINARY,
    REDUCTIONS,
    UNARY,
)

Generator = Callable[[object], tuple[list[np.ndarray], dict]]

SPECIAL_CASES: dict[str, Generator] = {
    **{op: g.unary(op) for op in UNARY},
    **{op: g.binary(op) for op in BINARY},
    **{f"{op}:int": g.integer_binary(op) for op in INTEGER_BINARY},
    **{op: g.reduction for op in REDUCTIONS},
    **{
        op: g.movement(op)
        for op in ("Transpose", "Concat", "Gather", "Tile", "Reshape")
    },
    **{op: g.logical(op) for op in ("And", "Or", "Xor", "Not")},
    "Elu": g.with_alpha(alpha=(0.1, 2.0)),
    "LeakyRelu": g.with_alpha(alpha=(0.01, 0.5)),
    "Selu": g.with_alpha(alpha=(1.0, 2.0), gamma=(1.0, 1.5)),
    "HardSigmoid": g.with_alpha(alpha=(0.1, 0.5), beta=(0.2, 0.7)),
    "Gelu": g.gelu,
    "IsInf": g.is_inf,
    "Clip": g.clip,
    "Mod": g.mod,
    "Cast": g.cast,
    "ArgMax": g.arg_reduction,
    "ArgMin": g.arg_reduction,
    "CumSum": g.cumsum,
    "Softmax": g.softmax,
    "TopK": g.topk,
    "MatMul": g.matmul,
    "Gemm": g.gemm,
    "LayerNormalization": g.layer_norm,
    "BatchNormalization": g.batch_norm,
    "Conv": g.conv,
    "MaxPool": g.max_pool,
    "AveragePool": g.average_pool,
    "GlobalAveragePool": g.global_average_pool,
    "QuantizeLinear": g.quantize_linear,
    "DequantizeLinear": g.dequantize_linear,
    "Range": g.range_,
    "Where": g.where,
    "Pad": g.pad,
    **{
        op: g.shape_op(op)
        for op in (
            "Expand",
            "Flatten",
            "Slice",
            "Split",
            "Squeeze",
            "Unsqueeze",
            "Shape",
            "Size",
            "Dropout",
        )
    },
    "GatherElements": g.gather_elements,
    "GatherND": g.gather_nd,
    "NonZero": g.non_zero,
    "OneHot": g.one_hot,
    "ConstantOfShape": g.constant_of_shape,
    "Constant": g.constant,
    "ConvTranspose": g.conv_transpose,
    "Resize": g.resize,
    "NonMaxSuppression": g.non_max_suppression,
    "Swish": g.swish,
}
"""Generators by name: the ONNX operator, with a `:variant` suffix where one
operator has two (integer arithmetic)."""

OUTPUTS = {"TopK": 2, "Split": 2}

PARAMETERS = {
    **{op: (1,) for op in (*REDUCTIONS, "CumSum", "TopK", "Tile", "Reshape",
                           "Expand", "Split", "Squeeze", "Unsqueeze")},
    "Clip": (1, 2), "Pad": (1, 2), "QuantizeLinear": (1, 2), "DequantizeLinear": (1, 2),
    "Slice": (1, 2, 3, 4), "OneHot": (1, 2), "ConstantOfShape": (0,),
    "Resize": (1, 2), "NonMaxSuppression": (2, 3, 4),
}  # fmt: skip
"""Inputs that are initializers (models hold them as constants: the importer
maps the op to an nn op only then)."""


def _with_initializers(model: onnx.ModelProto, inputs, indices) -> onnx.ModelProto:
    graph = model.graph
    for i in indices:
        graph.initializer.append(
            numpy_helper.from_array(inputs[i], graph.input[i].name)
        )
    kept = [v for i, v in enumerate(graph.input) if i not in indices]
    del graph.input[:]
    graph.input.extend(kept)
    return model


def special_case(name: str, pick) -> Case:
    """A one-node model of `name` (a key of SPECIAL_CASES) and its inputs."""
    op_type = name.partition(":")[0]
    inputs, attrs = SPECIAL_CASES[name](pick)
    if not inputs:
        return _no_input_case(op_type, attrs)
    model = one_node(op_type, inputs, attrs, OUTPUTS.get(op_type, 1))
    constants = PARAMETERS.get(op_type, ())
    model = _with_initializers(model, inputs, constants)
    inputs = [x for i, x in enumerate(inputs) if i not in constants]
    shown = ",".join(f"{k}={v}" for k, v in sorted(attrs.items()))
    shapes = " ".join(f"{list(a.shape)}:{a.dtype}" for a in inputs)
    return Case(op_type, f"{name}({shown}) {shapes}", model, tuple(inputs))


def _no_input_case(op_type: str, attrs: dict) -> Case:
    """A one-node model without inputs (Constant): its output is the value."""
    value = numpy_helper.to_array(attrs["value"])
    node = helper.make_node(op_type, [], ["y0"], **attrs)
    output = helper.make_tensor_value_info(
        "y0", helper.np_dtype_to_tensor_dtype(value.dtype), value.shape
    )
    graph = helper.make_graph([node], op_type, [], [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    return Case(op_type, f"{op_type}() {list(value.shape)}:{value.dtype}", model, ())
