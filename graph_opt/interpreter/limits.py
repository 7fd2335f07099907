"""The largest tensor one op may create, checked before the op allocates it.

Every op is checked by its result types when they are static
(`ResultSizeGuard`, an xDSL interpreter listener); ops whose result size
depends on their operands' values (ConstantOfShape, Range, Tile, OneHot,
opaque ONNX ops such as Expand) check the size they computed before
allocating. The limit is 256 MiB per tensor unless `tensor_limit` says
otherwise; fold-constants adds an element budget (its `max-size`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np
from xdsl.interpreter import Interpreter
from xdsl.ir import Attribute, Block, Operation
from xdsl.utils.exceptions import InterpretationError

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.shapes import DYN, ranked, tensor_type

DEFAULT_MAX_BYTES = 256 << 20


@dataclass(frozen=True)
class TensorLimit:
    max_bytes: int = DEFAULT_MAX_BYTES
    max_elements: int | None = None


_LIMIT: ContextVar[TensorLimit] = ContextVar(
    "tensor_limit",
    default=TensorLimit(),  # noqa: B039 (frozen)
)


class TensorTooLarge(InterpretationError):
    """An op would create a tensor above the limit; nothing was allocated."""

    def __init__(self, op: Operation | str, what: str):
        super().__init__(f"{op_kind(op)} would create {what}")
        self.what = what


def op_kind(op: Operation | str) -> str:
    """An op as errors name it: ONNX's op type for nn.opaque, else its name."""
    from graph_opt.dialects.nn.opaque import OpaqueOp

    if isinstance(op, str):
        return op
    return op.op_type.data if isinstance(op, OpaqueOp) else op.name


@contextmanager
def tensor_limit(
    max_bytes: int | None = None, max_elements: int | None = None
) -> Iterator[None]:
    """Run the body with another limit (bytes per tensor, and an element budget)."""
    current = _LIMIT.get()
    token = _LIMIT.set(
        TensorLimit(
            current.max_bytes if max_bytes is None else max_bytes,
            current.max_elements if max_elements is None else max_elements,
        )
    )
    try:
        yield
    finally:
        _LIMIT.reset(token)


def max_tensor_bytes() -> int:
    """The largest tensor, in bytes, that may be created in this context."""
    return _LIMIT.get().max_bytes


def set_max_tensor_bytes(max_bytes: int) -> None:
    """Set the limit for the rest of this context (the command-line tools)."""
    _LIMIT.set(TensorLimit(max_bytes, _LIMIT.get().max_elements))


def check_size(op: Operation | str, shape: Iterable[int], dtype: np.dtype) -> None:
    """Raise TensorTooLarge if `op` (or what a string names) may not create a
    tensor of this shape."""
    limit = _LIMIT.get()
    count = math.prod(int(d) for d in shape)
    if limit.max_elements is not None and count > limit.max_elements:
        raise TensorTooLarge(op, elements_over_budget(count, limit.max_elements))
    size = count * np.dtype(dtype).itemsize
    if size > limit.max_bytes:
        raise TensorTooLarge(
            op,
            f"a tensor of {_mib(size)}, above the limit of {_mib(limit.max_bytes)} "
            "(--max-tensor-size)",
        )


def elements_over_budget(count: int, budget: int) -> str:
    return f"{count:,} result elements, above the budget of {budget:,}"


def _mib(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MiB"


def static_size(value_type: Attribute) -> tuple[list[int], np.dtype] | None:
    """The shape and dtype of a value of static shape and numeric type."""
    shaped = ranked(value_type)
    if shaped is None:
        return None
    shape = list(shaped.get_shape())
    if DYN in shape:
        return None
    try:
        return shape, numpy_dtype(shaped.element_type)
    except ValueError:
        return None


class ResultSizeGuard(Interpreter.Listener):
    """Refuses, before it runs, an op whose result is above the limit: by its
    static result types, and for dynamic ones by the types its type rule gives
    for the shapes of the arguments at hand."""

    def will_interpret_op(self, op: Operation, args: tuple) -> None:
        dynamic = False
        for result in op.results:
            known = static_size(result.type)
            if known is None:
                dynamic = True
            else:
                check_size(op, *known)
        if dynamic and isinstance(op, NNOperation):
            for result_type in _types_for_arguments(op, args):
                known = static_size(result_type)
                if known is not None:
                    check_size(op, *known)


def _types_for_arguments(op: NNOperation, args: tuple) -> list[Attribute]:
    """The result types of `op`'s type rule for operands of the arguments'
    shapes (values it reads from constants are unknown then); [] when none."""
    operand_types = []
    for operand, arg in zip(op.operands, args):
        element = getattr(operand.type, "element_type", None)
        if element is None:
            return []
        operand_types.append(tensor_type(element, np.shape(arg)))
    try:
        inferred = type(op).infer_result_types(
            Block(arg_types=operand_types).args, op.properties
        )
    except Exception:  # a rule refusing these shapes: the op's own run says why
        return []
    return inferred or []
