"""ONNX's semantics on special values in a GraphDef, for nn ops whose property
keeps them (docs/guarantees.md, "Special values"): an exact TensorFlow form
where one is simple, else a one-line warning naming the op and its property."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType

from graph_opt.dialects.nn import index_ops as ix
from graph_opt.dialects.nn import reduce as r
from graph_opt.dialects.nn import tensor_ops as t
from graph_opt.dialects.nn.dtypes import is_float_dtype, numpy_dtype
from graph_opt.remarks import warn


def is_wrapping_cast(op: t.CastOp) -> bool:
    """A float cast to an integer narrower than 32 bits without `clamp_narrow`:
    ONNX wraps (through int32) where TensorFlow's Cast clamps; TensorFlow's
    float to int32 and int32 to narrower casts give ONNX's result."""
    source = op.input.type.element_type  # type: ignore[attr-defined]
    if op.clamp_narrow is not None or not isinstance(op.to, IntegerType):
        return False
    if isinstance(source, IntegerType) or not 1 < op.to.width.data < 32:
        return False
    try:
        return is_float_dtype(numpy_dtype(source))
    except ValueError:  # float4 and others numpy has no dtype for
        return False


def warn_unkept(op: ix.RangeOp | r.ArgReduceOp) -> None:
    """Say that TensorFlow's Range or ArgMax/ArgMin replaces ONNX's semantics."""
    if not is_float_dtype(numpy_dtype(op.operands[0].type.element_type)):  # type: ignore[attr-defined]
        return  # integers: the two frameworks agree
    if isinstance(op, ix.RangeOp) and op.accumulate is not None:
        warn(
            "export: nn.range {accumulate} (ONNX's running sum) written as "
            "TensorFlow's Range, start + i * delta: float elements may differ "
            "by rounding"
        )
    elif isinstance(op, r.ArgReduceOp) and op.scan_from_first is not None:
        warn(
            f"export: {op.name} {{scan_from_first}} (ONNX's scan) written as "
            f"TensorFlow's {'ArgMax' if isinstance(op, r.ArgMaxOp) else 'ArgMin'}: "
            "where the first element is NaN, or no element is beyond the "
            "type's extreme finite value, the index may differ"
        )
