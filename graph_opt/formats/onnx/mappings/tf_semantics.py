"""Exact ONNX forms of TensorFlow's semantics on special values, for nn ops
whose property keeps them (docs/guarantees.md, "Special values"): a model
imported from TensorFlow and exported to ONNX computes what TensorFlow does.
"""

from __future__ import annotations

import numpy as np
import onnx

from graph_opt.dialects.nn import index_ops as ix
from graph_opt.dialects.nn import reduce as r
from graph_opt.dialects.nn import tensor_ops as t
from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.dtypes import float_info, is_float_dtype, numpy_dtype

INT32_BOUND = 2.0**31
"""Floats from here up (and NaN) convert to int32's minimum."""


def is_clamped_cast(e, op: t.CastOp) -> bool:
    """A float cast to an integer narrower than 32 bits that clamps (TensorFlow)."""
    if op.clamp_narrow is None:  # first: int4, float4 and others have no numpy dtype
        return False
    to = numpy_dtype(op.to)
    return (
        is_float_dtype(e.numpy_dtype(op.input)) and to.kind in "iu" and to.itemsize < 4
    )


def emit_clamped_cast(e, op: t.CastOp) -> None:
    """Cast(Min(Cast(Where(x < 2^31, Max(x, lo), lo), int32), hi)): NaN, +inf
    and x >= 2^31 are int32's minimum, clamped to lo; the rest truncate to
    int32 and are clamped to [lo, hi]."""
    x, dtype = _wide_float(e, e.name(op.input), e.numpy_dtype(op.input))
    info = np.iinfo(numpy_dtype(op.to))
    with np.errstate(over="ignore"):  # float16's 2^31 is inf: every finite x is below
        bound = e.initializer(np.array(INT32_BOUND, dtype), "int32_bound")
    lo = e.initializer(np.array(info.min, dtype), "lo")
    below, raised, safe = e.fresh(f"{x}_below"), e.fresh(f"{x}_raised"), e.fresh(x)
    e.node("Less", [x, bound], [below])
    e.node("Max", [x, lo], [raised])
    e.node("Where", [below, raised, lo], [safe])
    as_int32, capped = e.fresh(f"{x}_int32"), e.fresh(f"{x}_capped")
    e.node("Cast", [safe], [as_int32], e.attrs(to=onnx.TensorProto.INT32))
    hi = e.initializer(np.array(info.max, np.int32), "hi")
    e.node("Min", [as_int32, hi], [capped])
    to = onnx.helper.np_dtype_to_tensor_dtype(info.dtype)
    e.node("Cast", [capped], [op.output], e.attrs(to=to))


def emit_product_range(e, op: ix.RangeOp) -> None:
    """start + Cast(Range(0, n, 1)) * delta, with n = max(ceil(double(limit -
    start) / double(delta)), 0) as onnxruntime's Range counts (a constant when
    start, limit and delta are)."""
    start, limit, delta = (e.name(v) for v in op.operands)
    zero = e.initializer(np.array(0, np.int64), "zero")
    one = e.initializer(np.array(1, np.int64), "one")
    count = _constant_count(op)
    if count is None:
        count = _count(e, start, limit, delta, zero)
    else:
        count = e.initializer(np.array(count, np.int64), "range_count")
    index, scaled = e.fresh("range_index"), e.fresh("range_scaled")
    e.node("Range", [zero, count, one], [index])
    dtype = e.numpy_dtype(op.start)
    index = _cast(e, index, onnx.helper.np_dtype_to_tensor_dtype(dtype))
    e.node("Mul", [index, delta], [scaled])
    e.node("Add", [start, scaled], [op.output])


def _count(e, start: str, limit: str, delta: str, zero: str) -> str:
    span, count = e.fresh("range_span"), e.fresh("range_count")
    e.node("Sub", [limit, start], [span])
    as_double = [_cast(e, v, onnx.TensorProto.DOUBLE) for v in (span, delta)]
    ratio, steps = e.fresh("range_ratio"), e.fresh("range_steps")
    e.node("Div", as_double, [ratio])
    e.node("Ceil", [ratio], [steps])
    steps = _cast(e, steps, onnx.TensorProto.INT64)
    e.node("Max", [steps, zero], [count])
    return count


def _constant_count(op: ix.RangeOp) -> int | None:
    """onnxruntime's count of a Range of constants (NaN and infinite ratios,
    int64's minimum in its conversion, count 0)."""
    start, limit, delta = (constant_value(v) for v in op.operands)
    if start is None or limit is None or delta is None:
        return None
    with np.errstate(all="ignore"):
        ratio = np.ceil(np.float64(limit - start) / np.float64(delta))
    return max(int(ratio), 0) if np.isfinite(ratio) else 0


def emit_nan_ignoring_arg(e, op: r.ArgReduceOp, op_type: str, attrs, out) -> None:
    """`op_type` (ArgMax/ArgMin) over x where only values beyond the type's
    lowest (highest) finite value stay and the rest, NaN included, become
    -inf (+inf): TensorFlow's scan, which starts from that finite value and
    gives 0 where nothing beats it. With select_last_index, where nothing
    does (the reduced value is the infinity) the index is 0 too."""
    largest = op_type == "ArgMax"
    limit = float_info(e.numpy_dtype(op.input)).max
    x, dtype = _wide_float(e, e.name(op.input), e.numpy_dtype(op.input))
    start = e.initializer(np.array(-limit if largest else limit, dtype), "scan_start")
    fill = e.initializer(np.array(-np.inf if largest else np.inf, dtype), "nan_fill")
    beyond, clean = e.fresh(f"{x}_candidate"), e.fresh(f"{x}_candidates")
    e.node("Greater" if largest else "Less", [x, start], [beyond])
    e.node("Where", [beyond, x, fill], [clean])
    if not int_value(op.properties, "select_last_index", 0):
        e.node(op_type, [clean], [out], attrs)
        return
    index, extreme = e.fresh(f"{x}_index"), e.fresh(f"{x}_extreme")
    e.node(op_type, [clean], [index], attrs)
    axis = int_value(op.properties, "axis", 0)
    keepdims = int_value(op.properties, "keepdims", 1)
    reduce = "ReduceMax" if largest else "ReduceMin"
    if e.opset < 18:
        e.node(reduce, [clean], [extreme], e.attrs(axes=[axis], keepdims=keepdims))
    else:
        axes = e.initializer(np.array([axis], np.int64), "axes")
        e.node(reduce, [clean, axes], [extreme], e.attrs(keepdims=keepdims))
    none, zero = e.fresh(f"{x}_none"), e.initializer(np.array(0, np.int64), "zero")
    e.node("Equal", [extreme, fill], [none])
    e.node("Where", [none, zero, index], [out])


def _wide_float(e, x: str, dtype: np.dtype) -> tuple[str, np.dtype]:
    """bfloat16 and float8 `x` cast to float32 (exactly): onnxruntime has no
    bfloat16 Less, Max, Where or ArgMax kernels, and ONNX no float8 form of them."""
    if dtype in (np.float16, np.float32, np.float64):
        return x, dtype
    return _cast(e, x, onnx.TensorProto.FLOAT), np.dtype(np.float32)


def _cast(e, name: str, to: int) -> str:
    cast = e.fresh(f"{name}_cast")
    e.node("Cast", [name], [cast], e.attrs(to=to))
    return cast
