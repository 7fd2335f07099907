"""Base classes shared by every op of the nn dialect."""

from __future__ import annotations

import math
from abc import ABC
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from typing import ClassVar

from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedSegments,
    IRDLOperation,
    OptionalDef,
    ParsePropInAttrDict,
    VariadicDef,
)
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.shapes import VALUE_CLASSES, types_compatible
from graph_opt.identity_memo import IdentityMemo
from graph_opt.xdsl_compat.ir import new_op

GENERIC_FORMAT = "operands attr-dict `:` functional-type(operands, results)"
"""The textual form of most nn ops: `nn.op %a, %b {attrs} : (types) -> types`."""


PropertyDefaults = Mapping[str, str | int | float]
"""Optional property name -> the value the op reads when the property is absent."""


class NNOperation(IRDLOperation, ABC):
    """An op of the nn dialect.

    Subclasses give a type rule in `infer_result_types`; the verifier checks
    declared result types against it, and `create` uses it to build ops. Other
    checks go in `verify_properties`, not in an override of `verify_` (the ONNX
    importer's verification relies on it).
    """

    irdl_options = (ParsePropInAttrDict(),)

    # Identity, as IRDLOperation's, but in C: ops are hashed in every worklist,
    # set and dict that passes and the importer keep.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {}
    """The defaults of optional properties that IRDL declares no `default_value`
    for (one would hide an explicit value equal to it when printing): the values
    the op's own reads fall back to. A class's table adds to its bases' (mixins
    included); `has_attr` matches them, and a test checks them against the ops."""

    KEEP_ON_CONSTANTS: ClassVar[bool] = False
    """Whether constant folding must keep the op: its properties carry information
    that later passes read and a folded constant would lose."""

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = False
    """Whether `infer_result_types` reads only the operands' types and the
    properties, not operand values: `rule_result_types` then remembers its results."""

    @classmethod
    def infer_result_types(
        cls, operands: Sequence[SSAValue], props: Mapping[str, Attribute]
    ) -> list[Attribute] | None:
        """Result types given operands and properties; None when no rule applies."""
        return None

    @classmethod
    def rule_result_types(
        cls, operands: Sequence[SSAValue], props: Mapping[str, Attribute]
    ) -> list[Attribute] | None:
        """`infer_result_types`, remembered per signature (operand type and property
        objects, which graphs share: types are interned) where the class allows it."""
        if not cls.RESULT_TYPES_FROM_SIGNATURE:
            return cls.infer_result_types(operands, props)
        key = (
            cls,
            *[id(v.type) for v in operands],
            *[(n, id(a)) for n, a in props.items()],
        )
        known = _signature_results.get(key)
        if known is not None:
            return list(known[1])
        types = cls.infer_result_types(operands, props)
        if types is not None:
            if len(_signature_results) >= _SIGNATURE_RESULTS_LIMIT:
                _signature_results.clear()
            # the entry holds the objects whose ids make its key: no id is reused
            parts = ([v.type for v in operands], list(props.values()))
            _signature_results[key] = (parts, tuple(types))
        return types

    @classmethod
    def create_inferred(
        cls,
        operands: Sequence[SSAValue | Operation],
        properties: Mapping[str, Attribute] | None = None,
        result_types: Sequence[Attribute] | None = None,
        block: Block | None = None,
    ):
        """Build the op from a flat operand list, typed by its rule unless types
        are given; appended to `block` if given."""
        if not properties:
            props = {}
        elif None in properties.values():
            props = {k: v for k, v in properties.items() if v is not None}
        else:
            props = properties  # (`new_op` copies it)
        flat = [_value(v) for v in operands]
        if result_types is None:
            result_types = cls.rule_result_types(flat, props)
            if result_types is None:
                raise VerifyException(f"cannot infer the result types of {cls.name}")
        if _fits_flat(cls, len(flat), len(result_types)):
            return new_op(cls, flat, result_types, props, UNKNOWN_LOC, block)
        op_def = cls.get_irdl_definition()
        op = cls.build(
            operands=_group(flat, [d for _, d in op_def.operands]),
            properties=props,
            result_types=_group(list(result_types), [d for _, d in op_def.results]),
        )
        if block is not None:
            block.add_op(op)
        return op

    def verify_(self) -> None:
        self.verify_properties()
        inferred = self.rule_result_types(list(self.operands), self.properties)
        if inferred is None:
            return
        if len(inferred) != len(self.results):
            raise VerifyException(
                f"expected {len(inferred)} results, got {len(self.results)}"
            )
        for index, (result, expected) in enumerate(zip(self.results, inferred)):
            if not types_compatible(result.type, expected):
                raise VerifyException(
                    f"result #{index} has type {result.type}, but the operands imply {expected}"
                )

    def verify_properties(self) -> None:
        """Checks of property values beyond their types; overridden per op."""


_signature_results: dict[tuple, tuple[tuple[list, list], tuple[Attribute, ...]]] = {}
_SIGNATURE_RESULTS_LIMIT = 1 << 14


def int_list(op_props: Mapping[str, Attribute], name: str) -> tuple[int, ...] | None:
    attr = op_props.get(name)
    if attr is None:
        return None
    known = _i64_array_values.get(attr)
    if known is not None:
        return known
    assert isinstance(attr, DenseArrayBase)
    return tuple(attr.get_values())


def int_value(op_props: Mapping[str, Attribute], name: str, default: int) -> int:
    attr = op_props.get(name)
    return default if attr is None else attr.value.data  # type: ignore[union-attr]


def check_flag(op_props: Mapping[str, Attribute], name: str) -> bool:
    """A 0/1 integer property as a bool, or a verification error."""
    value = int_value(op_props, name, 0)
    if value not in (0, 1):
        raise VerifyException(f"{name} must be 0 or 1, got {value}")
    return bool(value)


def float_value(op_props: Mapping[str, Attribute], name: str, default: float) -> float:
    attr = op_props.get(name)
    return default if attr is None else attr.value.data  # type: ignore[union-attr]


def str_value(op_props: Mapping[str, Attribute], name: str, default: str) -> str:
    attr = op_props.get(name)
    return default if attr is None else attr.data  # type: ignore[union-attr]


# Attributes are immutable, and building one verifies it (10-20 us): the builders
# below share one instance per value (axes, strides, epsilons repeat across nodes).


def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return _i64_array(tuple(values))


@lru_cache(maxsize=4096)
def _i64_array(values: tuple[int, ...]) -> DenseArrayBase:
    attr = DenseArrayBase.from_list(i64, list(values))
    _i64_array_values.put(attr, tuple(attr.get_values()))  # unpacking costs ~5 us
    return attr


_i64_array_values: IdentityMemo[tuple[int, ...]] = IdentityMemo(limit=1 << 13)
"""The values of the arrays `i64_array` made (as Python ints)."""


@lru_cache(maxsize=4096)
def i64_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, 64)


def f32_attr(value: float) -> FloatAttr:
    return _f32_attr(value, math.copysign(1.0, value))  # 0.0 == -0.0 as keys


@lru_cache(maxsize=4096)
def _f32_attr(value: float, sign: float) -> FloatAttr:
    return FloatAttr(value, 32)


@lru_cache(maxsize=4096)
def str_attr(value: str) -> StringAttr:
    return StringAttr(value)


def _value(operand: SSAValue | Operation) -> SSAValue:
    """`SSAValue.get`, without its costly generic type check where there is none to make."""
    if type(operand) in VALUE_CLASSES or isinstance(operand, SSAValue):
        return operand
    return SSAValue.get(operand)


@cache
def _arity(op_class: type[Operation], kind: str) -> tuple[int, float] | None:
    """(min, max) operand or result count of an op that `Operation.create` can build
    from flat lists (no segment sizes, regions or successors), else None."""
    op_def = op_class.get_irdl_definition()
    if op_def.regions or op_def.successors:
        return None
    if any(isinstance(o, AttrSizedSegments) for o in op_def.options):
        return None
    defs = [d for _, d in (op_def.operands if kind == "operands" else op_def.results)]
    if sum(isinstance(d, VariadicDef) for d in defs) > 1:
        return None
    fixed = sum(not isinstance(d, VariadicDef) for d in defs)
    if any(isinstance(d, OptionalDef) for d in defs):
        return fixed, fixed + 1
    variadic = any(isinstance(d, VariadicDef) for d in defs)
    return fixed, float("inf") if variadic else fixed


@cache
def _fits_flat(op_class: type[Operation], operands: int, results: int) -> bool:
    """Whether `Operation.create` can build the op from flat lists, which is several
    times faster than IRDL's `build` (that matters on graphs of 10,000s of nodes)."""
    for kind, count in (("operands", operands), ("results", results)):
        arity = _arity(op_class, kind)
        if arity is None or not arity[0] <= count <= arity[1]:
            return False
    return True


def _group(flat: list, defs: list) -> list:
    """Split a flat list over IRDL definitions: one value each, [] or [v] for an
    optional one, the rest for the (single) variadic one."""
    fixed = sum(1 for d in defs if not isinstance(d, VariadicDef))
    spare = len(flat) - fixed
    grouped, it = [], iter(flat)
    for d in defs:
        if isinstance(d, OptionalDef):
            take = 1 if spare > 0 else 0
            spare -= take
            grouped.append([next(it) for _ in range(take)])
        elif isinstance(d, VariadicDef):
            grouped.append([next(it) for _ in range(spare)])
            spare = 0
        else:
            grouped.append(next(it))
    return grouped
