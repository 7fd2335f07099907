"""Dataflow patterns: a small language for subgraphs of SSA values, after TVM's.

Patterns are built by operator overloading (`is_op("nn.relu")(x)`, `p | q`,
`p + q`) and matched against SSA values by `graph_opt.patterns.matcher`.
A pattern object used twice in one pattern must match the same value twice.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import (
    Attribute,
    BlockArgument,
    Operation,
    OpResult,
    SSAValue,
    TypeAttribute,
)
from xdsl.traits import Commutative, ConstantLike, OpTrait, SymbolTable

from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.dtypes import element_type
from graph_opt.patterns.defaults import property_default
from graph_opt.patterns.failure import Failure, text_of
from graph_opt.patterns.op_kinds import OpKind, op_kind
from graph_opt.xdsl_compat.ir import operand_values

if TYPE_CHECKING:
    from graph_opt.patterns.matcher import Match, Matcher

MAX_UNORDERED_INPUTS = 6
"""The most inputs `ordered_inputs=False` permutes (6! = 720 orders)."""

SKIPPABLE_OPS = frozenset({"nn.identity", "nn.stop_gradient"})
"""Identity-like ops that `skip_identity` matching looks through."""


def has_trait(op: Operation, trait: type[OpTrait]) -> bool:
    """`op.has_trait(trait)`, looked up once per op class (traits are the class's)."""
    return _class_has_trait(type(op), trait)


@functools.cache
def _class_has_trait(op_class: type[Operation], trait: type[OpTrait]) -> bool:
    return op_class.has_trait(trait)


class DFPattern:
    """A dataflow pattern: matches an SSA value (and what it depends on).

    `root_names` is the set of op names that can define a matching value,
    or None when any value may match.
    """

    root_names: frozenset[str] | None = None
    label: str | None = None
    """A name to look the match up by (`match["conv"]`, TF's OpTypePattern(name=...))."""

    def named(self, label: str) -> DFPattern:
        """This pattern, labelled: its match is also `match[label]`."""
        self.label = label
        return self

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        raise NotImplementedError

    def match_op(self, m: Matcher, op: Operation) -> bool:
        """Match an op itself (for `.result(i)`); only op patterns can."""
        return m.fail(self, op, "only is_op(...) patterns can match an op")

    def may_match(self, value: SSAValue, depth: int) -> bool:
        """A cheap necessary condition for a match at `value`: op names and
        operand counts, `depth` operands deep. False only where `match_in`
        would fail; it binds nothing and explains nothing."""
        return True

    def operand_patterns(self) -> tuple[DFPattern, ...] | None:
        """The operands this pattern stands for as an argument of `is_op`: itself
        (a tuple pattern: its fields, None for any number)."""
        return (self,)

    def __or__(self, other: DFPattern) -> AltPattern:
        return AltPattern(self, other)

    def __and__(self, other: DFPattern) -> AndPattern:
        return AndPattern(self, other)

    def __invert__(self) -> NotPattern:
        return NotPattern(self)

    def __add__(self, other: DFPattern) -> OpPattern:
        return is_op("nn.add")(self, other)

    def __sub__(self, other: DFPattern) -> OpPattern:
        return is_op("nn.sub")(self, other)

    def __mul__(self, other: DFPattern) -> OpPattern:
        return is_op("nn.mul")(self, other)

    def __truediv__(self, other: DFPattern) -> OpPattern:
        return is_op("nn.div")(self, other)

    def optional(self, build: Callable[[DFPattern], DFPattern]) -> AltPattern:
        """This pattern, or `build(self)` (e.g. an optional trailing relu); the longer first."""
        return AltPattern(build(self), self)

    def has_attr(self, attrs: Mapping[str, Any]) -> AttrPattern:
        return AttrPattern(self, dict(attrs))

    def has_shape(self, shape: Sequence[int | None]) -> PredicatePattern:
        return has_shape(shape, self)

    def has_dtype(self, dtype: Any) -> PredicatePattern:
        return has_dtype(dtype, self)

    def has_type(self, value_type: Attribute) -> PredicatePattern:
        return has_type(value_type, self)

    def where(
        self, predicate: Callable[[SSAValue], bool], description: str
    ) -> PredicatePattern:
        """This pattern, when `predicate(value)` also holds."""
        return PredicatePattern(self, predicate, description)

    def where_match(
        self, check: Callable[[Match, SSAValue], bool], description: str
    ) -> MatchPredicatePattern:
        """This pattern, when `check(match, value)` holds on the finished match
        (a condition that reads other sub-patterns' values, as the check
        functions of TVM's BYOC pattern tables do)."""
        return MatchPredicatePattern(self, check, description)

    def result(self, index: int) -> ResultPattern:
        return is_tuple_get_item(self, index)

    def has_uses(self, count: int) -> UsesPattern:
        """This pattern, when the value has exactly `count` uses."""
        return UsesPattern(self, count, only_in_match=False)

    def only_used_by_pattern(self) -> UsesPattern:
        """This pattern, when every use of the value is an op of the match."""
        return UsesPattern(self, None, only_in_match=True)

    def used_by(self, consumer: Any, index: int = -1) -> Any:
        """In a PatternContext: `consumer`'s op reads this value (at operand
        `index` if given); `a ^ b` for short (Relax's DPL)."""
        from graph_opt.patterns.context import _link

        return _link(self, consumer, only=False, index=index)

    def only_used_by(self, consumer: Any, index: int = -1) -> Any:
        """In a PatternContext: `consumer`'s op reads this value and nothing else
        does; `a >> b` for short."""
        from graph_opt.patterns.context import _link

        return _link(self, consumer, only=True, index=index)

    __xor__ = used_by
    __rshift__ = only_used_by

    def fork_to(self, *consumers: Any) -> DFPattern:
        """In a PatternContext: this value is read by each of `consumers`."""
        from graph_opt.patterns.context import fork_to

        return fork_to(self, *consumers)

    def same_shape_as(self, other: DFPattern) -> SameShapePattern:
        """This pattern, when its value has the shape of `other`'s (Relax's
        same_shape_as), checked once the whole match is found."""
        return SameShapePattern(self, other)

    def match(self, value: SSAValue, *, skip_identity: bool = False) -> Match | None:
        from graph_opt.patterns.matcher import match_value

        return match_value(self, value, skip_identity=skip_identity)

    def match_function(self, function: Operation) -> Match | None:
        """The match of a function pattern (FunctionPattern, maybe with has_attr)
        on a func.func, or None."""
        from graph_opt.patterns.matcher import match_operation

        return match_operation(self, function)

    def match_all(self, root: Operation, *, skip_identity: bool = False) -> list[Match]:
        from graph_opt.patterns.matcher import match_all

        return match_all(self, root, skip_identity=skip_identity)


class WildcardPattern(DFPattern):
    def __call__(self, *args: DFPattern | None) -> AnyOpPattern:
        """An application of any op to `args` (TVM's wildcard callee)."""
        return AnyOpPattern(args)

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        return True

    def match_op(self, m: Matcher, op: Operation) -> bool:
        return True  # (a function, for `wildcard().has_attr(...)`)

    def __str__(self) -> str:
        return "*"


class OpPattern(DFPattern):
    """A value defined by an op of one of `names`, with operands matching `args`.

    `args` None accepts any operands; a trailing None in `args` accepts any
    number of further operands. Ops with the Commutative trait also match
    with their two operands swapped, unless `commutative` is False; with
    `ordered_inputs` False, `args` match the operands in any order (TF's
    graph_matcher), for any op.
    """

    def __init__(
        self,
        names: Sequence[str],
        args: Sequence[DFPattern | None] | None = None,
        commutative: bool = True,
        ordered_inputs: bool = True,
    ):
        self.names = frozenset(names)
        self.root_names = self.names
        self.commutative, self.ordered_inputs = commutative, ordered_inputs
        self.args: tuple[DFPattern, ...] | None = None
        self.variadic = args is None
        if args is not None:
            if any(getattr(a, "unordered", False) for a in args):
                self.ordered_inputs = ordered_inputs = False
            args = _expand_tuples(args)
            if any(a is None for a in args[:-1]):
                raise ValueError("only the last input pattern may be None")
            self.variadic = bool(args) and args[-1] is None
            self.args = tuple(a for a in args if a is not None)
            if not ordered_inputs and len(self.args) > MAX_UNORDERED_INPUTS:
                raise ValueError(
                    f"ordered_inputs=False takes at most {MAX_UNORDERED_INPUTS} inputs"
                )

    def __call__(self, *args: DFPattern | None) -> OpPattern:
        call = OpPattern(
            sorted(self.names), args, self.commutative, self.ordered_inputs
        )
        call.label = self.label
        return call

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not isinstance(value, OpResult):
            return m.fail(self, value, "is a block argument, not an op result")
        if value.index != 0:
            return m.fail(
                self, value, "is result #{}; use .result({})", value.index, value.index
            )
        return self.match_op(m, value.op)

    def match_op(self, m: Matcher, op: Operation) -> bool:
        if op.name not in self.names:
            return m.fail(self, op, "op is {}, expected {}", op.name, _names(self))
        return self._match_applied(m, op)

    def may_match(self, value: SSAValue, depth: int) -> bool:
        if not isinstance(value, OpResult) or value.index != 0:
            return False
        return value.op.name in self.names and self._may_apply(value.op, depth)

    def _may_apply(self, op: Operation, depth: int) -> bool:
        """Whether the operands of `op` may match `args` (`_match_applied`'s cheap half)."""
        args = self.args
        if args is None:
            return True
        operands = operand_values(op)
        count, expected = len(operands), len(args)
        if count < expected or (count > expected and not self.variadic):
            return False
        if depth == 0 or not self.ordered_inputs:
            return True
        depth -= 1
        for arg, operand in zip(args, operands):
            if not arg.may_match(operand, depth):
                break
        else:
            return True
        return (
            self.commutative
            and expected == 2
            and count == 2
            and has_trait(op, Commutative)
            and args[0].may_match(operands[1], depth)
            and args[1].may_match(operands[0], depth)
        )

    def _match_applied(self, m: Matcher, op: Operation) -> bool:
        """Match the operands of an op of an accepted name, and bind it."""
        if self.args is not None:
            operands = operand_values(op)
            count, expected = len(operands), len(self.args)
            if count < expected or (count > expected and not self.variadic):
                return m.fail(self, op, "has {} operands, expected {}", count, expected)
            if not self._match_operands(m, op, operands):
                return False
        return m.bind_op(self, op)

    def _match_operands(self, m: Matcher, op: Operation, operands) -> bool:
        assert self.args is not None
        if not self.ordered_inputs:
            orders = itertools.permutations(operands, len(self.args))
        elif (
            self.commutative
            and len(self.args) == 2
            and len(operands) == 2
            and has_trait(op, Commutative)
        ):
            orders = (operands, operands[::-1])
        else:
            return self._match_in_order(m, op, operands)
        mark, failures = m.mark(), []
        for order in orders:
            if self._match_in_order(m, op, order):
                return True
            failures.append(m.failure)
            m.rollback(mark)
        return m.fail_all(self, op, "operands match in no order", failures[:4])

    def _match_in_order(self, m: Matcher, op: Operation, operands) -> bool:
        match_value = m.match_value
        for index, (arg, operand) in enumerate(zip(self.args or (), operands)):
            if not match_value(arg, operand):
                return m.fail_because(self, op, "operand #{} does not match", index)
        return True

    def __str__(self) -> str:
        head = f"is_op({_names(self)})"
        if self.args is None:
            return head
        args = [str(a) for a in self.args] + (["..."] if self.variadic else [])
        return f"{head}({', '.join(args)})"


class AnyOpPattern(OpPattern):
    """An application of any op with operands matching `args`: TVM's wildcard
    callee (`wildcard()(x, y)`; `wildcard()(None)`: any operands), as in Relay,
    where every operator is a call. A constant is a value, not an application."""

    def __init__(self, args: Sequence[DFPattern | None]):
        super().__init__((), args)
        self.root_names = None

    def __call__(self, *args: DFPattern | None) -> AnyOpPattern:
        call = AnyOpPattern(args)
        call.label = self.label
        return call

    def match_op(self, m: Matcher, op: Operation) -> bool:
        if has_trait(op, ConstantLike):
            return m.fail(self, op, "is a constant, not an op application")
        return self._match_applied(m, op)

    def may_match(self, value: SSAValue, depth: int) -> bool:
        if not isinstance(value, OpResult) or value.index != 0:
            return False
        return not has_trait(value.op, ConstantLike) and self._may_apply(
            value.op, depth
        )

    def __str__(self) -> str:
        return "*" + super().__str__().removeprefix("is_op()")


def _expand_tuples(args: Sequence[DFPattern | None]) -> list[DFPattern | None]:
    """Input patterns with each tuple pattern spread into its fields (None, any
    number of operands, for a tuple of any fields)."""
    expanded: list[DFPattern | None] = []
    for arg in args:
        parts = None if arg is None else arg.operand_patterns()
        expanded.extend([None] if parts is None else parts)
    return expanded


class AltPattern(DFPattern):
    """`left | right`: the first alternative that matches (no later backtracking)."""

    def __init__(self, left: DFPattern, right: DFPattern):
        self.left, self.right = left, right
        names = (left.root_names, right.root_names)
        self.root_names = None if None in names else names[0] | names[1]  # type: ignore[operator]

    def may_match(self, value: SSAValue, depth: int) -> bool:
        return self.left.may_match(value, depth) or self.right.may_match(value, depth)

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        mark = m.mark()
        if m.match_value(self.left, value, skippable=False):
            return True
        left_failure = m.failure
        m.rollback(mark)
        if m.match_value(self.right, value, skippable=False):
            return True
        return m.fail_all(
            self, value, "no alternative matches", [left_failure, m.failure]
        )

    def __str__(self) -> str:
        return f"({self.left} | {self.right})"


class AndPattern(DFPattern):
    """`left & right`: a value both match (Relax's `&`)."""

    def __init__(self, left: DFPattern, right: DFPattern):
        self.left, self.right = left, right
        names = [n for n in (left.root_names, right.root_names) if n is not None]
        self.root_names = frozenset.intersection(*names) if names else None

    def may_match(self, value: SSAValue, depth: int) -> bool:
        return self.left.may_match(value, depth) and self.right.may_match(value, depth)

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        for side in (self.left, self.right):
            if not m.match_value(side, value, skippable=False):
                return m.fail_because(self, value, "{} does not match", side)
        return True

    def __str__(self) -> str:
        return f"({self.left} & {self.right})"


class NotPattern(DFPattern):
    """`~inner`: a value `inner` does not match (its bindings are not kept)."""

    def __init__(self, inner: DFPattern):
        self.inner = inner

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if m.matches_alone(self.inner, value):
            return m.fail(self, value, "{} matches", self.inner)
        return True

    def __str__(self) -> str:
        return f"~{self.inner}"


class VarPattern(DFPattern):
    """An argument of a function, with name hint `name` if given (TVM's is_var)."""

    def __init__(self, name: str | None):
        self.name = name

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not isinstance(value, BlockArgument) or not isinstance(
            value.block.parent_op(), func.FuncOp
        ):
            return m.fail(self, value, "is not a function argument")
        if self.name is not None and value.name_hint != self.name:
            return m.fail(self, value, "is not named {}", self.name)
        return True

    def __str__(self) -> str:
        return "is_var()" if self.name is None else f"is_var({self.name!r})"


class ExprPattern(DFPattern):
    """Exactly one given value (TVM's is_expr)."""

    def __init__(self, value: SSAValue):
        self.value = value
        self.root_names = (
            frozenset({value.op.name}) if isinstance(value, OpResult) else None
        )

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if value is not self.value:
            return m.fail(self, value, "is not {}", self.value)
        return True

    def __str__(self) -> str:
        return f"is_expr({text_of(self.value)})"


class ConstantPattern(DFPattern):
    """A value defined by a constant op; with `value`, one equal to it elementwise."""

    root_names = frozenset({"nn.constant"})

    def __init__(self, value: float | np.ndarray | None = None):
        self.value = None if value is None else np.asarray(value)

    def may_match(self, value: SSAValue, depth: int) -> bool:
        return isinstance(value, OpResult) and has_trait(value.op, ConstantLike)

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not isinstance(value, OpResult) or not has_trait(value.op, ConstantLike):
            return m.fail(self, value, "is not defined by a constant")
        if self.value is not None:
            array = constant_value(value)
            if array is None:
                return m.fail(self, value, "has no nn.constant value to compare")
            try:
                equal = bool(np.all(array == self.value))
            except ValueError:
                equal = False
            if (
                not equal
                or np.broadcast_shapes(array.shape, self.value.shape) != array.shape
            ):
                return m.fail(self, value, "is not equal to {}", self.value)
        m.bind_constant(value.op)
        return True

    def __str__(self) -> str:
        return "is_constant()" if self.value is None else f"is_constant({self.value})"


class WrapperPattern(DFPattern):
    """`inner` with one more condition: it can define only what `inner` can
    (same root names, same cheap precheck); subclasses add the condition."""

    def __init__(self, inner: DFPattern):
        self.inner = inner
        self.root_names = inner.root_names

    def may_match(self, value: SSAValue, depth: int) -> bool:
        return self.inner.may_match(value, depth)


class AttrPattern(WrapperPattern):
    """`inner` whose defining op has the given attributes (or property defaults).

    `TOpPattern` (TVM's operator attribute) compares the op's OpKind. With
    `of_callee` (has_attr, then input patterns: TVM's attributes of the
    callee), a func.call is checked by its callee function's attributes.
    """

    def __init__(
        self, inner: DFPattern, attrs: dict[str, Any], of_callee: bool = False
    ):
        super().__init__(inner)
        self.attrs, self.of_callee = attrs, of_callee

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not m.match_value(self.inner, value, skippable=False):
            return m.fail_because(self, value, "inner pattern does not match")
        if not isinstance(value, OpResult):
            return m.fail(self, value, "is a block argument: it has no attributes")
        return self._check(m, value.op)

    def match_op(self, m: Matcher, op: Operation) -> bool:
        if not self.inner.match_op(m, op):
            return m.fail_because(self, op, "inner pattern does not match")
        return self._check(m, op)

    def __call__(self, *args: DFPattern | None) -> AttrPattern:
        """The inner pattern applied to `args`, with these attributes of the
        callee (TVM's `is_op("add").has_attr({...})(x, y)`,
        `wildcard().has_attr({"Composite": "add"})(x, y)`)."""
        if not callable(self.inner):
            raise TypeError(f"{self.inner} takes no input patterns")
        return AttrPattern(self.inner(*args), self.attrs, of_callee=True)

    def _check(self, m: Matcher, op: Operation) -> bool:
        holder = op
        if self.of_callee and isinstance(op, func.CallOp):
            holder = SymbolTable.lookup_symbol(op, op.callee)
            if holder is None:
                return m.fail(
                    self, op, "calls @{}, which is not in the module", op.callee
                )
        for name, expected in self.attrs.items():
            if name == "TOpPattern":
                actual: Any = op_kind(holder)
                if actual != expected:
                    return m.fail(
                        self, op, "is of kind {}, expected {}", actual, expected
                    )
                continue
            actual = _attribute(holder, name)
            if actual is None:
                return m.fail(self, op, "has no attribute {}", name)
            if not _attr_equals(actual, expected):
                return m.fail(self, op, "{} is {}, expected {}", name, actual, expected)
        return True

    def __str__(self) -> str:
        return f"{self.inner}.has_attr({self.attrs})"


class PredicatePattern(WrapperPattern):
    """`inner` whose value satisfies a predicate (type, shape, dtype, custom)."""

    def __init__(
        self, inner: DFPattern, predicate: Callable[[SSAValue], bool], description: str
    ):
        super().__init__(inner)
        self.predicate, self.description = predicate, description

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not m.match_value(self.inner, value, skippable=False):
            return m.fail_because(self, value, "inner pattern does not match")
        if not self.predicate(value):
            return m.fail(self, value, "type {} fails {}", value.type, self.description)
        return True

    def __str__(self) -> str:
        return f"{self.inner}.{self.description}"


class MatchPredicatePattern(WrapperPattern):
    """`inner` whose value satisfies a predicate of the whole match, checked once it is found."""

    def __init__(
        self,
        inner: DFPattern,
        check: Callable[[Match, SSAValue], bool],
        description: str,
    ):
        super().__init__(inner)
        self.check, self.description = check, description

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not m.match_value(self.inner, value, skippable=False):
            return m.fail_because(self, value, "inner pattern does not match")
        m.check_when_complete(self, value, self._check)
        return True

    def _check(self, match: Match, value: SSAValue) -> str | None:
        return None if self.check(match, value) else f"fails {self.description}"

    def __str__(self) -> str:
        return f"{self.inner}.where_match({self.description})"


class ResultPattern(DFPattern):
    """Result `index` (any one if None) of an op matching `inner` (TVM's is_tuple_get_item)."""

    def __init__(self, inner: DFPattern, index: int | None):
        self.inner, self.index = inner, index
        self.root_names = inner.root_names

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not isinstance(value, OpResult):
            return m.fail(self, value, "is not an op result")
        if self.index is not None and value.index != self.index:
            return m.fail(self, value, "is not result #{} of an op", self.index)
        if not self.inner.match_op(m, value.op):
            return m.fail_because(self, value, "the op does not match")
        return True

    def __str__(self) -> str:
        return f"{self.inner}.result({self.index})"


class UsesPattern(WrapperPattern):
    """`inner` with exactly `count` uses, or used only by ops of the match."""

    def __init__(self, inner: DFPattern, count: int | None, only_in_match: bool):
        super().__init__(inner)
        self.count, self.only_in_match = count, only_in_match

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not m.match_value(self.inner, value, skippable=False):
            return m.fail_because(self, value, "inner pattern does not match")
        uses = value.uses.get_length()
        if self.count is not None and uses != self.count:
            return m.fail(self, value, "has {} uses, expected {}", uses, self.count)
        if self.only_in_match:
            m.require_uses_inside(self, value)
        return True

    def __str__(self) -> str:
        check = (
            "only_used_by_pattern()"
            if self.only_in_match
            else f"has_uses({self.count})"
        )
        return f"{self.inner}.{check}"


class SameShapePattern(WrapperPattern):
    """`inner`, whose value has the shape of the value `other` matches."""

    def __init__(self, inner: DFPattern, other: DFPattern):
        super().__init__(inner)
        self.other = other

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not m.match_value(self.inner, value, skippable=False):
            return m.fail_because(self, value, "inner pattern does not match")
        m.check_when_complete(self, value, self._same_shape)
        return True

    def _same_shape(self, match: Match, value: SSAValue) -> str | None:
        other = match.values.get(self.other)
        if other is None:
            return f"{self.other} is not part of the match"
        shapes = [getattr(v.type, "get_shape", lambda: None)() for v in (value, other)]
        if shapes[0] is None or shapes[0] != shapes[1] or -1 in shapes[0]:
            return f"shape {shapes[0]} is not the (static) shape {shapes[1]} of {text_of(other)}"
        return None

    def __str__(self) -> str:
        return f"{self.inner}.same_shape_as({self.other})"


class DominatorPattern(DFPattern):
    """`child`, where every path up from it reaches `parent` through ops matching `path`.

    All paths must reach the same parent value; operands defined by constants
    end a path. What each value reaches is found once per search (kept in the
    matcher's memo), walking iteratively: a chain of any length works, and
    match_all over a ladder of n ops takes O(n), not O(n^2).
    """

    def __init__(self, parent: DFPattern, path: DFPattern, child: DFPattern):
        self.parent, self.path, self.child = parent, path, child
        self.root_names = child.root_names

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not m.match_value(self.child, value, skippable=False):
            return m.fail_because(self, value, "child does not match")
        if not isinstance(value, OpResult):
            return m.fail(self, value, "child is not an op result")
        reaches = m.memo.setdefault(self, {})
        self._explore(m, value.op.operands, reaches)
        outcome = _join(self, value, [reaches[v][1] for v in value.op.operands])
        if isinstance(outcome, Failure):
            m.failure = outcome
            return False
        if outcome is None:
            return m.fail(self, value, "no path reaches parent {}", self.parent)
        if not m.match_value(self.parent, outcome):
            return m.fail_because(self, outcome, "parent conflicts with the match")
        m.bind_path(self, lambda: _path_ops(value.op.operands, reaches))
        return True

    def _explore(self, m: Matcher, start, reaches: dict) -> None:
        """Fill `reaches[v]` for `start` and every value above it on a path:
        the parent value it reaches, None (only constants), or a Failure."""
        stack = [v for v in start if v not in reaches]
        on_path: set[SSAValue] = set()
        while stack:
            current = stack[-1]
            if current in reaches:
                stack.pop()
            elif current in on_path:  # its operands are done: join them
                stack.pop()
                operands = current.owner.operands  # type: ignore[union-attr]
                reaches[current] = (
                    _PATH,
                    _join(self, current, [reaches[v][1] for v in operands]),
                )
            elif _is_constant(current):
                reaches[current] = (_END, None)
            elif m.matches_alone(self.parent, current):
                reaches[current] = (_END, current)
            elif isinstance(current, OpResult) and m.matches_alone(self.path, current):
                on_path.add(current)
                stack.extend(v for v in current.op.operands if v not in reaches)
            else:
                reaches[current] = (
                    _END,
                    Failure(
                        self,
                        current,
                        "matches neither parent {} nor path {}",
                        (self.parent, self.path),
                    ),
                )

    def __str__(self) -> str:
        return f"dominates({self.parent}, {self.path}, {self.child})"


_PATH, _END = "path", "end"
"""Kinds of a dominator memo entry: an op on a path, or where a path ends."""


def _join(pattern: DFPattern, subject: SSAValue, outcomes: list) -> Any:
    """What a value reaches from what its operands reach: one parent, None, or a Failure."""
    parent = None
    for outcome in outcomes:
        if isinstance(outcome, Failure):
            return outcome
        if outcome is not None and parent is not None and outcome is not parent:
            return Failure(
                pattern,
                subject,
                "paths reach two parents, {} and {}",
                (parent, outcome),
            )
        parent = outcome if outcome is not None else parent
    return parent


def _path_ops(start, reaches: dict) -> list[Operation]:
    """The ops on the paths up from `start`, as a dominator match found them."""
    ops, seen, stack = [], set(), list(start)
    while stack:
        current = stack.pop()
        if current in seen or reaches[current][0] != _PATH:
            continue
        seen.add(current)
        ops.append(current.owner)
        stack.extend(current.owner.operands)
    return ops


def wildcard() -> WildcardPattern:
    return WildcardPattern()


def is_op(
    *names: str,
    commutative: bool = True,
    ordered_inputs: bool = True,
    associative: bool = False,
    name: str | None = None,
) -> OpPattern:
    """Ops named `names` ("nn.conv", or short "conv"); call it on input patterns.

    `associative`: a chain of the op in any grouping (see
    graph_opt.patterns.associative); `name`: the label of the match (`m[name]`).
    """
    if not names:
        raise ValueError("is_op needs at least one op name")
    full = [n if "." in n else f"nn.{n}" for n in names]
    if associative:
        from graph_opt.patterns.associative import AssociativePattern

        pattern: OpPattern = AssociativePattern(full, None)
    else:
        pattern = OpPattern(full, None, commutative, ordered_inputs)
    pattern.label = name
    return pattern


def is_constant(value: float | np.ndarray | None = None) -> ConstantPattern:
    return ConstantPattern(value)


def is_tuple_get_item(pattern: DFPattern, index: int | None = None) -> ResultPattern:
    """Result `index` of an op matching `pattern`; any result when `index` is None."""
    return ResultPattern(pattern, index)


def is_var(name: str | None = None) -> VarPattern:
    """An argument of a function (TVM's is_var), named `name` if given."""
    return VarPattern(name)


def is_expr(value: SSAValue) -> ExprPattern:
    """Exactly `value` (TVM's is_expr)."""
    return ExprPattern(value)


def is_op_kind(kind: OpKind, pattern: DFPattern | None = None) -> PredicatePattern:
    """Values defined by ops of TVM's TOpPattern `kind` (OpKind.ELEMWISE, ...)."""

    def check(value: SSAValue) -> bool:
        return isinstance(value, OpResult) and op_kind(value.op) == kind

    return PredicatePattern(pattern or wildcard(), check, f"is_op_kind({kind.name})")


def is_elementwise(pattern: DFPattern | None = None) -> PredicatePattern:
    return is_op_kind(OpKind.ELEMWISE, pattern)


def is_broadcast(pattern: DFPattern | None = None) -> PredicatePattern:
    return is_op_kind(OpKind.BROADCAST, pattern)


def is_injective(pattern: DFPattern | None = None) -> PredicatePattern:
    return is_op_kind(OpKind.INJECTIVE, pattern)


def is_reduction(pattern: DFPattern | None = None) -> PredicatePattern:
    return is_op_kind(OpKind.COMM_REDUCE, pattern)


def dominates(parent: DFPattern, path: DFPattern, child: DFPattern) -> DominatorPattern:
    return DominatorPattern(parent, path, child)


def has_attr(attrs: Mapping[str, Any], pattern: DFPattern | None = None) -> AttrPattern:
    return AttrPattern(pattern or wildcard(), dict(attrs))


def has_shape(
    shape: Sequence[int | None], pattern: DFPattern | None = None
) -> PredicatePattern:
    """Values of a ranked tensor type of `shape`; None or -1 accepts any size."""
    wanted = tuple(shape)

    def check(value: SSAValue) -> bool:
        actual = value.type.get_shape() if isinstance(value.type, TensorType) else None
        return (
            actual is not None
            and len(actual) == len(wanted)
            and all(w in (None, -1) or w == a for w, a in zip(wanted, actual))
        )

    return PredicatePattern(pattern or wildcard(), check, f"has_shape({list(wanted)})")


def has_dtype(dtype: Any, pattern: DFPattern | None = None) -> PredicatePattern:
    """Tensors of an element type (an MLIR type, or a numpy dtype such as "float32")."""
    wanted = _element_type(dtype)

    def check(value: SSAValue) -> bool:
        return getattr(value.type, "element_type", None) == wanted

    return PredicatePattern(pattern or wildcard(), check, f"has_dtype({wanted})")


def has_type(
    value_type: Attribute, pattern: DFPattern | None = None
) -> PredicatePattern:
    return PredicatePattern(
        pattern or wildcard(), lambda v: v.type == value_type, f"has_type({value_type})"
    )


def _element_type(dtype: Any) -> Attribute:
    """An MLIR element type, from itself or a numpy / TVM dtype ("float32", "int8")."""
    return dtype if isinstance(dtype, Attribute) else element_type(np.dtype(dtype))


def _names(pattern: OpPattern) -> str:
    return "|".join(sorted(pattern.names))


def _is_constant(value: SSAValue) -> bool:
    return isinstance(value, OpResult) and has_trait(value.op, ConstantLike)


def _attribute(op: Operation, name: str) -> Attribute | None:
    """An attribute or property of `op`, or the value the op gives it when absent."""
    found = op.get_attr_or_prop(name)
    return property_default(op, name) if found is None else found


def _attr_equals(actual: Attribute, expected: Any) -> bool:
    if isinstance(expected, Attribute):
        return actual == expected
    if isinstance(actual, TypeAttribute):
        try:
            return actual == _element_type(expected)
        except (TypeError, ValueError):
            return False  # not a dtype name
    if isinstance(actual, FloatAttr):
        return math.isclose(actual.value.data, expected, rel_tol=1e-6)
    if isinstance(actual, IntegerAttr):
        return actual.value.data == expected
    if isinstance(actual, StringAttr):
        return actual.data == expected
    if isinstance(actual, DenseArrayBase):
        return tuple(actual.get_values()) == tuple(expected)
    return False
