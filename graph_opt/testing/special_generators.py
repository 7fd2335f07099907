"""Generators of special-value inputs and non-default attributes, one per
ONNX operator the importer maps (or per operator family): each takes a pick
(`integer`, `real`, `choice`, `array(dtype, shape, kind)`) and returns the
inputs and the attributes of a one-node model. `special_cases.py` tables them.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from graph_opt.testing.special_values import MODERATE, WHOLE

FLOATS = (np.float32, np.float16, np.float64)

UNARY = (
    "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Cos",
    "Cosh", "Erf", "Exp", "Floor", "Log", "Neg", "Reciprocal", "Relu", "Round",
    "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Tan",
    "Tanh", "IsNaN", "Mish", "HardSwish", "Identity",
)  # fmt: skip
BINARY = (
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Greater",
    "GreaterOrEqual", "Less", "LessOrEqual",
)  # fmt: skip
INTEGER_BINARY = ("Add", "Sub", "Mul", "Max", "Min", "Equal", "Greater", "Less")
REDUCTIONS = ("ReduceMax", "ReduceMin", "ReduceMean", "ReduceSum", "ReduceProd")


def _shape(pick, rank: int | None = None) -> list[int]:
    rank = pick.integer(1, 3) if rank is None else rank
    return [pick.integer(1, 5) for _ in range(rank)]


WITHOUT_FLOAT64 = frozenset({
    "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cosh", "Erf", "Sinh",
    "Softplus", "Softsign", "Tan", "Mish", "HardSwish",
})  # fmt: skip
"""Operators onnxruntime has no float64 kernel for."""


def unary(op_type: str):
    floats = FLOATS[:2] if op_type in WITHOUT_FLOAT64 else FLOATS

    def generate(pick):
        x = pick.array(pick.choice(floats), _shape(pick))
        return [x], {}

    return generate


def binary(op_type: str):
    def generate(pick):
        dtype = pick.choice(FLOATS)
        shape = _shape(pick)
        return [pick.array(dtype, shape), pick.array(dtype, shape[1:])], {}

    return generate


def integer_binary(op_type: str):
    def generate(pick):
        dtype = pick.choice((np.int32, np.int64, np.int8, np.uint8))
        shape = _shape(pick)
        return [pick.array(dtype, shape), pick.array(dtype, shape)], {}

    return generate


def with_alpha(**ranges: tuple[float, float]):
    def generate(pick):
        x = pick.array(pick.choice(FLOATS[:2]), _shape(pick))
        return [x], {name: pick.real(*r) for name, r in ranges.items()}

    return generate


def gelu(pick):
    x = pick.array(pick.choice(FLOATS[:2]), _shape(pick))
    return [x], {"approximate": pick.choice(("none", "tanh"))}


def is_inf(pick):
    x = pick.array(pick.choice(FLOATS), _shape(pick))
    return [x], {"detect_negative": pick.integer(0, 1), "detect_positive": 1}


def clip(pick):
    dtype = pick.choice(FLOATS)
    bounds = np.sort(pick.array(dtype, [2], MODERATE))
    return [
        pick.array(dtype, _shape(pick)),
        bounds[:1].reshape(()),
        bounds[1:].reshape(()),
    ], {}


def mod(pick):
    if pick.integer(0, 1):
        dtype = pick.choice(FLOATS)
        shape = _shape(pick)
        return [pick.array(dtype, shape), pick.array(dtype, shape)], {"fmod": 1}
    dtype = pick.choice((np.int32, np.int64, np.int8))
    shape = _shape(pick)
    divisor = pick.array(dtype, shape)
    divisor[divisor == 0] = 3  # integer division by zero is refused
    return [pick.array(dtype, shape), divisor], {"fmod": pick.integer(0, 1)}


def cast(pick):
    source = pick.choice((*FLOATS, np.int32, np.int64, np.int8, np.uint8))
    target = pick.choice((np.float32, np.float16, np.float64, np.int32, np.int64,
                          np.int8, np.uint8, np.bool_))  # fmt: skip
    to = helper.np_dtype_to_tensor_dtype(np.dtype(target))
    return [pick.array(source, _shape(pick))], {"to": to}


def reduction(pick):
    shape = _shape(pick, pick.integer(1, 3))
    x = pick.array(pick.choice(FLOATS), shape, MODERATE)
    axis = pick.integer(-len(shape), len(shape) - 1)
    return [x, np.array([axis], np.int64)], {"keepdims": pick.integer(0, 1)}


def arg_reduction(pick):
    shape = _shape(pick, pick.integer(1, 3))
    x = pick.array(pick.choice((*FLOATS, np.int32)), shape)
    attrs = {
        "axis": pick.integer(-len(shape), len(shape) - 1),
        "keepdims": pick.integer(0, 1),
        "select_last_index": pick.integer(0, 1),
    }
    return [x], attrs


def cumsum(pick):
    shape = _shape(pick)
    x = pick.array(pick.choice((*FLOATS, np.int32)), shape, MODERATE)
    axis = np.array(pick.integer(-len(shape), len(shape) - 1), np.int64)
    return [x, axis], {"exclusive": pick.integer(0, 1), "reverse": pick.integer(0, 1)}


def softmax(pick):
    shape = _shape(pick)
    x = pick.array(pick.choice(FLOATS), shape, MODERATE)
    return [x], {"axis": pick.integer(-len(shape), len(shape) - 1)}


def topk(pick):
    shape = _shape(pick)
    axis = pick.integer(-len(shape), len(shape) - 1)
    k = np.array([pick.integer(1, shape[axis])], np.int64)
    attrs = {"axis": axis, "largest": pick.integer(0, 1), "sorted": 1}
    return [pick.array(pick.choice(FLOATS[:2]), shape), k], attrs


def matmul(pick):
    m, k, n = _shape(pick, 3)
    dtype = pick.choice(FLOATS)
    return [
        pick.array(dtype, [m, k], MODERATE),
        pick.array(dtype, [k, n], MODERATE),
    ], {}


def gemm(pick):
    m, k, n = _shape(pick, 3)
    dtype = pick.choice(FLOATS[:1] + FLOATS[2:])
    a = pick.array(dtype, [k, m], MODERATE)
    b = pick.array(dtype, [k, n], MODERATE)
    c = pick.array(dtype, [n], MODERATE)
    attrs = {"transA": 1, "alpha": pick.real(-2, 2), "beta": pick.real(-2, 2)}
    return [a, b, c], attrs


def layer_norm(pick):
    shape = _shape(pick, 3)
    x = pick.array(np.float32, shape, MODERATE)
    scale = pick.array(np.float32, shape[-1:], MODERATE)
    bias = pick.array(np.float32, shape[-1:], MODERATE)
    return [x, scale, bias], {"axis": -1, "epsilon": pick.real(1e-6, 1e-2)}


def batch_norm(pick):
    shape = [pick.integer(1, 2), pick.integer(1, 4), pick.integer(1, 3)]
    c = shape[1:2]
    dtype = pick.choice(FLOATS[:2])
    x = pick.array(dtype, shape, MODERATE)
    var = np.abs(pick.array(dtype, c, MODERATE))
    params = [pick.array(dtype, c, MODERATE) for _ in range(3)]
    return [x, params[0], params[1], params[2], var], {"epsilon": pick.real(1e-6, 0.1)}


def conv(pick):
    n, c, f = pick.integer(1, 2), pick.integer(1, 3), pick.integer(1, 3)
    x = pick.array(np.float32, [n, c, pick.integer(2, 5), pick.integer(2, 5)], MODERATE)
    w = pick.array(np.float32, [f, c, 2, 2], MODERATE)
    return [x, w], {"pads": [pick.integer(0, 1)] * 4}


def max_pool(pick):
    x = pick.array(pick.choice(FLOATS), [1, 2, pick.integer(2, 5), pick.integer(2, 5)])
    return [x], {"kernel_shape": [2, 2], "pads": [pick.integer(0, 1)] * 4}


def average_pool(pick):
    x = pick.array(np.float32, [1, 2, pick.integer(2, 5), pick.integer(2, 5)], MODERATE)
    attrs = {
        "kernel_shape": [2, 2],
        "pads": [1, 1, 1, 1],
        "count_include_pad": pick.integer(0, 1),
    }
    return [x], attrs


def global_average_pool(pick):
    return [pick.array(np.float32, [1, 2, pick.integer(1, 4), 3], MODERATE)], {}


def quantize_linear(pick):
    x = pick.array(np.float32, _shape(pick))  # other scales import as nn.opaque
    scale = np.array(pick.choice((0.5, 1.0, 0.013, 3e-39)), x.dtype)
    zero_type = pick.choice((np.int8, np.uint8))
    zero = np.array(pick.integer(0, 100), zero_type)
    return [x, scale, zero], {}


def dequantize_linear(pick):
    x = pick.array(pick.choice((np.int8, np.uint8, np.int32)), _shape(pick))
    scale = pick.array(np.float32, [], MODERATE)
    zero = np.array(0 if x.dtype == np.int32 else pick.integer(0, 20), x.dtype)
    return [x, scale, zero], {}


def range_(pick):
    dtype = pick.choice((np.float32, np.float64, np.int32, np.int64))
    start = pick.choice((0.1, -3.0, 1e7, 16777216.0, 0.5))
    delta = pick.choice((0.1, 0.3, 1.0, -0.7, 3.0))
    count = pick.integer(1, 60)
    if np.issubdtype(dtype, np.integer):
        start, delta = round(start) % 1000, round(delta) or 1
    limit = start + delta * count
    return [np.array(v, dtype) for v in (start, limit, delta)], {}


def where(pick):
    shape = _shape(pick)
    dtype = pick.choice(FLOATS)
    cond = pick.array(np.bool_, shape)
    return [cond, pick.array(dtype, shape), pick.array(dtype, shape[1:])], {}


def pad(pick):
    shape = _shape(pick, 2)
    dtype = pick.choice(FLOATS)
    pads = np.array([1, 0, 0, 1], np.int64)
    value = pick.array(dtype, [], WHOLE)
    return [pick.array(dtype, shape), pads, value], {"mode": "constant"}


def movement(op_type: str):
    """Ops that only move values: NaN payloads and signed zeros must survive."""

    def generate(pick):
        dtype = pick.choice(FLOATS)
        x = pick.array(dtype, [2, 3])
        if op_type == "Transpose":
            return [x], {"perm": [1, 0]}
        if op_type == "Concat":
            return [x, pick.array(dtype, [2, 1])], {"axis": 1}
        if op_type == "Gather":
            return [x, np.array([2, 0, 2], np.int64)], {"axis": 1}
        if op_type == "Tile":
            return [x, np.array([2, 1], np.int64)], {}
        return [x, np.array([3, 2], np.int64)], {}  # Reshape

    return generate


def shape_op(op_type: str):
    """Ops that reshape, slice or repeat: values must pass through untouched."""

    def generate(pick):
        dtype = pick.choice(FLOATS)
        x = pick.array(dtype, [2, 3, 1])
        i64 = np.int64
        return {
            "Expand": ([x, np.array([2, 2, 3, 4], i64)], {}),
            "Flatten": ([x], {"axis": pick.integer(0, 3)}),
            "Slice": (
                [x, *(np.array(v, i64) for v in ([2, 0], [-3, 3], [1, 0], [-1, 2]))],
                {},
            ),
            "Split": ([x, np.array([1, 2], i64)], {"axis": 1}),
            "Squeeze": ([x, np.array([2], i64)], {}),
            "Unsqueeze": ([x, np.array([0, 4], i64)], {}),
            "Shape": ([x], {"start": pick.integer(-3, 1)}),
            "Size": ([x], {}),
            "Dropout": ([x], {}),
        }[op_type]

    return generate


def gather_elements(pick):
    x = pick.array(pick.choice(FLOATS), [3, 4])
    indices = np.array([[2, 0, -1, 1], [0, 0, 2, -3]], np.int64)
    return [x, indices], {"axis": 0}


def gather_nd(pick):
    x = pick.array(pick.choice(FLOATS), [2, 3, 2])
    return [x, np.array([[1, 2], [0, -1]], np.int64)], {}


def non_zero(pick):
    return [pick.array(pick.choice((*FLOATS[:2], np.int32)), _shape(pick))], {}


def one_hot(pick):
    values = pick.array(np.float32, [2])  # onnxruntime's only float kernel
    indices = np.array([[0, -1, 3], [5, 2, -4]], np.int64)
    return [indices, np.array(4, np.int64), values], {"axis": pick.integer(-3, 2)}


def constant_of_shape(pick):
    dtype = pick.choice(FLOATS)
    value = onnx.numpy_helper.from_array(pick.array(dtype, [1]))
    return [np.array([2, 3], np.int64)], {"value": value}


def constant(pick):
    """No input: the value attribute, special values and all, as the output."""
    return [], {
        "value": numpy_helper.from_array(pick.array(pick.choice(FLOATS), [2, 3]))
    }


def conv_transpose(pick):
    c, f = pick.integer(1, 3), pick.integer(1, 3)
    x = pick.array(np.float32, [1, c, pick.integer(1, 4), pick.integer(1, 4)], MODERATE)
    w = pick.array(np.float32, [c, f, 2, 2], MODERATE)
    return [x, w], {"strides": [2, 1], "pads": [0, 1, 0, 0]}


def resize(pick):
    """Whole output sizes (scale 1.5 on an even width): others import as nn.opaque."""
    x = pick.array(np.float32, [1, 1, pick.integer(1, 4), pick.choice((2, 4))])
    mode = pick.choice(("nearest", "linear"))
    scales = np.array([1, 1, 2, 1.5], np.float32)
    return [x, np.zeros(0, np.float32), scales], {"mode": mode}


def non_max_suppression(pick):
    boxes = pick.array(np.float32, [1, 4, 4], MODERATE)
    scores = pick.array(np.float32, [1, 2, 4], MODERATE)
    limits = [
        np.array([3], np.int64),
        np.array([0.5], np.float32),
        np.array([0.0], np.float32),
    ]
    return [boxes, scores, *limits], {"center_point_box": pick.integer(0, 1)}


def swish(pick):
    return [pick.array(pick.choice(FLOATS[:2]), _shape(pick))], {}


def logical(op_type: str):
    def generate(pick):
        shape = _shape(pick)
        if op_type == "Not":
            return [pick.array(np.bool_, shape)], {}
        return [pick.array(np.bool_, shape), pick.array(np.bool_, shape)], {}

    return generate
