"""Shape arithmetic shared by the type rules of nn ops (dynamic dims are -1)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Attribute, BlockArgument, OpResult, SSAValue
from xdsl.utils.exceptions import VerifyException

DYN = DYNAMIC_INDEX


def tensor_type(element: Attribute, shape: Iterable[int]) -> TensorType:
    """A ranked tensor type, one instance shared by equal types (attributes are immutable)."""
    return _interned_tensor_type(element, tuple(shape))


@lru_cache(maxsize=4096)
def _interned_tensor_type(element: Attribute, shape: tuple[int, ...]) -> TensorType:
    return TensorType(element, shape)


def ranked(value: SSAValue | Attribute) -> TensorType | None:
    """The ranked tensor type of a value (or type), or None when unranked."""
    # exact-class tests first: isinstance against xDSL's abstract classes is slow
    if type(value) in VALUE_CLASSES or isinstance(value, SSAValue):
        value = value.type
    return value if type(value) is TensorType or isinstance(value, TensorType) else None


VALUE_CLASSES = (OpResult, BlockArgument)
"""The concrete SSAValue classes."""


def broadcast_shapes(lhs: Sequence[int], rhs: Sequence[int]) -> tuple[int, ...]:
    """numpy broadcasting of two shapes, with dynamic dims."""
    rank = max(len(lhs), len(rhs))
    lhs = (1,) * (rank - len(lhs)) + tuple(lhs)
    rhs = (1,) * (rank - len(rhs)) + tuple(rhs)
    out = []
    for a, b in zip(lhs, rhs):
        if a == 1:
            out.append(b)
        elif b == 1 or a == b:
            out.append(a)
        elif a == DYN or b == DYN:
            out.append(b if a == DYN else a)
        else:
            raise VerifyException(
                f"shapes {list(lhs)} and {list(rhs)} are not broadcastable"
            )
    return tuple(out)


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    """A possibly negative axis as an index in [0, rank)."""
    if not -rank <= axis < rank:
        raise VerifyException(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank


def dims_compatible(declared: Sequence[int], inferred: Sequence[int]) -> bool:
    return len(declared) == len(inferred) and all(
        d == i or DYN in (d, i) for d, i in zip(declared, inferred)
    )


def types_compatible(declared: Attribute, inferred: Attribute) -> bool:
    """Whether a declared result type agrees with the type rule's result."""
    if declared is inferred:  # the common case: both made by `tensor_type`
        return True
    declared_t, inferred_t = ranked(declared), ranked(inferred)
    if declared_t is None or inferred_t is None:
        # Unranked on either side: only the element types can be compared.
        el = getattr(declared, "element_type", None)
        return el is None or el == getattr(inferred, "element_type", el)
    return declared_t.element_type == inferred_t.element_type and dims_compatible(
        declared_t.get_shape(), inferred_t.get_shape()
    )


def more_precise(new: Attribute, old: Attribute) -> bool:
    """Whether `new` refines `old`: a different type that agrees with it, ranked,
    with each of `old`'s static dims kept."""
    if new == old or not types_compatible(old, new):
        return False
    new_t, old_t = ranked(new), ranked(old)
    if new_t is None:
        return False
    if old_t is None:
        return True
    return all(o == n or o == DYN for o, n in zip(old_t.get_shape(), new_t.get_shape()))


def window_output_size(
    size: int,
    kernel: int,
    stride: int,
    pad_total: int,
    dilation: int = 1,
    ceil: bool = False,
) -> int:
    """Output length of a sliding window (conv, pooling) along one axis."""
    if size == DYN:
        return DYN
    effective = dilation * (kernel - 1) + 1
    span = size + pad_total - effective
    if span < 0:
        raise VerifyException(
            f"window of size {effective} does not fit input of size {size} with padding {pad_total}"
        )
    return (-(-span // stride) if ceil else span // stride) + 1
