"""Patterns over structure beyond single ops: tuples, scf control flow, functions and calls.

- `is_tuple([a, b])`: as an operand of `is_op`, a run of (variadic) operands
  (`is_op("concat")(is_tuple([a, b]))`, Relay's concatenate of a tuple);
  under `is_tuple_get_item` / `tuple[i]`, the results of a multi-result op.
- `is_if(cond, then, else_)`: result #i of an `scf.if` whose branches yield
  values matching `then` / `else_` at position i (TF's cond imports as scf.if).
- `is_while(init, cond, body)`: result #i of an `scf.while`: its initial
  value, the loop condition, the value the body yields for the next iteration.
- `FunctionPattern(params, body)`: a `func.func` (params None: any), matched
  by `match_function` and found by `match_all`; matched on a value, the result
  of a `func.call` of such a function; called: `FunctionPattern(...)(x, y)`
  matches a `func.call` of a function it matches with arguments `x`, `y`.
  `is_call(name)`: calls of a function by name, or of any function; the
  callee may also be any pattern of a function (`is_call(has_attr({...}))`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import func, scf
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.traits import SymbolTable

from graph_opt.patterns.pattern import (
    MAX_UNORDERED_INPUTS,
    DFPattern,
    OpPattern,
    ResultPattern,
    wildcard,
)

if TYPE_CHECKING:
    from graph_opt.patterns.matcher import Matcher


class TuplePattern(DFPattern):
    """The results of a multi-result op, or a run of operands (see the module doc).

    `fields` None accepts any number; with `unordered`, fields match in any order.
    """

    def __init__(self, fields: Sequence[DFPattern] | None, unordered: bool = False):
        self.fields = None if fields is None else tuple(fields)
        self.unordered = unordered
        if unordered and self.fields and len(self.fields) > MAX_UNORDERED_INPUTS:
            raise ValueError(
                f"unordered tuples take at most {MAX_UNORDERED_INPUTS} fields"
            )

    def __getitem__(self, index: int | None) -> ResultPattern:
        """Field `index` (negative from the end, None any), as Relax's `tuple[i]`."""
        if index is not None and self.fields is not None:
            if not -len(self.fields) <= index < len(self.fields):
                raise IndexError(f"tuple of {len(self.fields)} has no field {index}")
            index %= len(self.fields)
        return ResultPattern(self, index)

    def operand_patterns(self) -> tuple[DFPattern, ...] | None:
        return self.fields

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        return m.fail(
            self, value, "a tuple matches an op's results or operands, not one value"
        )

    def match_op(self, m: Matcher, op: Operation) -> bool:
        return self.match_values(m, op, tuple(op.results))

    def match_values(self, m: Matcher, subject, values: tuple[SSAValue, ...]) -> bool:
        if self.fields is None:
            return True
        if len(values) != len(self.fields):
            return m.fail(
                self,
                subject,
                "has {} values, expected {}",
                len(values),
                len(self.fields),
            )
        orders = itertools.permutations(values) if self.unordered else iter([values])
        mark, failures = m.mark(), []
        for order in orders:
            if all(m.match_value(f, v) for f, v in zip(self.fields, order)):
                return True
            failures.append(m.failure)
            m.rollback(mark)
        return m.fail_all(self, subject, "the fields do not match", failures[:4])

    def __str__(self) -> str:
        fields = "*" if self.fields is None else ", ".join(map(str, self.fields))
        return f"is_tuple([{fields}]{', unordered' if self.unordered else ''})"


class IfPattern(DFPattern):
    """Result #i of an scf.if: its condition, and the i-th values its branches yield."""

    root_names = frozenset({"scf.if"})

    def __init__(self, cond: DFPattern, then: DFPattern, else_: DFPattern):
        self.cond, self.then, self.else_ = cond, then, else_

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not isinstance(value, OpResult) or not isinstance(value.op, scf.IfOp):
            return m.fail(self, value, "is not a result of scf.if")
        op, index = value.op, value.index
        if not m.match_value(self.cond, op.cond):
            return m.fail_because(self, value, "the condition does not match")
        for name, pattern, region in (
            ("then", self.then, op.true_region),
            ("else", self.else_, op.false_region),
        ):
            if not region.blocks:
                return m.fail(self, value, "has no {} branch", name)
            yielded = _terminator_operands(region.block)
            if not m.match_value(pattern, yielded[index]):
                return m.fail_because(self, value, "the {} branch does not match", name)
        return True

    def __str__(self) -> str:
        return f"is_if({self.cond}, {self.then}, {self.else_})"


class WhilePattern(DFPattern):
    """Result #i of an scf.while: its initial value, condition and next value."""

    root_names = frozenset({"scf.while"})

    def __init__(self, init: DFPattern, cond: DFPattern, body: DFPattern):
        self.init, self.cond, self.body = init, cond, body

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not isinstance(value, OpResult) or not isinstance(value.op, scf.WhileOp):
            return m.fail(self, value, "is not a result of scf.while")
        op, index = value.op, value.index
        condition = op.before_region.block.last_op
        parts = (
            ("initial value", self.init, op.arguments[index]),
            ("condition", self.cond, condition.operands[0]),  # type: ignore[union-attr]
            ("body", self.body, _terminator_operands(op.after_region.block)[index]),
        )
        for name, pattern, part in parts:
            if not m.match_value(pattern, part):
                return m.fail_because(self, value, "the {} does not match", name)
        return True

    def __str__(self) -> str:
        return f"is_while({self.init}, {self.cond}, {self.body})"


class FunctionPattern(DFPattern):
    """A func.func whose arguments match `params` (None: any) and whose single
    returned value matches `body` (TVM's and Relax's FunctionPattern)."""

    root_names = frozenset({"func.func", "func.call"})

    def __init__(self, params: Sequence[DFPattern] | None, body: DFPattern):
        self.params = None if params is None else tuple(params)
        self.body = body

    def __call__(self, *args: DFPattern | None) -> CallPattern:
        """A call of a function this pattern matches, with arguments `args`."""
        return CallPattern(self, args)

    def match_in(self, m: Matcher, value: SSAValue) -> bool:
        if not isinstance(value, OpResult) or not isinstance(value.op, func.CallOp):
            return m.fail(self, value, "is not the result of a func.call")
        return self.match_op(m, value.op)

    def match_op(self, m: Matcher, op: Operation) -> bool:
        if isinstance(op, func.CallOp):
            callee = SymbolTable.lookup_symbol(op, op.callee)
            if callee is None or not m.match_elsewhere(self, callee):
                return m.fail_because(
                    self, op, "callee @{} does not match", op.callee.string_value()
                )
            return m.bind_op(self, op)  # type: ignore[arg-type]
        if not isinstance(op, func.FuncOp) or not op.body.blocks:
            return m.fail(self, op, "is not a function with a body")
        block = op.body.block
        if self.params is not None:
            if len(block.args) != len(self.params):
                return m.fail(
                    self,
                    op,
                    "has {} arguments, expected {}",
                    len(block.args),
                    len(self.params),
                )
            for index, (param, arg) in enumerate(zip(self.params, block.args)):
                if not m.match_value(param, arg):
                    return m.fail_because(
                        self, op, "argument #{} does not match", index
                    )
        returned = _terminator_operands(block)
        if len(returned) != 1:
            return m.fail(self, op, "returns {} values, expected 1", len(returned))
        if not m.match_value(self.body, returned[0]):
            return m.fail_because(self, op, "the returned value does not match")
        return True

    def __str__(self) -> str:
        params = "*" if self.params is None else ", ".join(map(str, self.params))
        return f"FunctionPattern([{params}], {self.body})"


class CallPattern(OpPattern):
    """A func.call of a function named `callee`, matching a function pattern
    (a FunctionPattern, maybe with has_attr), or any (None); arguments as `is_op`'s."""

    def __init__(
        self,
        callee: str | DFPattern | None,
        args: Sequence[DFPattern | None] | None = None,
    ):
        super().__init__(["func.call"], args)
        self.callee = callee

    def __call__(self, *args: DFPattern | None) -> CallPattern:
        return CallPattern(self.callee, args)

    def match_op(self, m: Matcher, op: Operation) -> bool:
        if isinstance(op, func.CallOp) and self.callee is not None:
            name = op.callee.string_value()
            if isinstance(self.callee, str):
                if name != self.callee:
                    return m.fail(
                        self, op, "calls @{}, expected @{}", name, self.callee
                    )
            else:
                callee = SymbolTable.lookup_symbol(op, op.callee)
                if callee is None or not m.match_elsewhere(self.callee, callee):
                    return m.fail_because(self, op, "callee @{} does not match", name)
        return super().match_op(m, op)

    def __str__(self) -> str:
        head = f"is_call({self.callee if self.callee is not None else '*'})"
        return head + super().__str__().removeprefix("is_op(func.call)")


def _terminator_operands(block) -> tuple[SSAValue, ...]:
    last = block.last_op
    return () if last is None else tuple(last.operands)


def is_tuple(
    fields: Sequence[DFPattern] | None = None, unordered: bool = False
) -> TuplePattern:
    return TuplePattern(fields, unordered)


def is_if(
    cond: DFPattern | None = None,
    then: DFPattern | None = None,
    else_: DFPattern | None = None,
) -> IfPattern:
    """Result #i of an scf.if (TVM's is_if); omitted parts match anything."""
    return IfPattern(cond or wildcard(), then or wildcard(), else_ or wildcard())


def is_while(
    init: DFPattern | None = None,
    cond: DFPattern | None = None,
    body: DFPattern | None = None,
) -> WhilePattern:
    """Result #i of an scf.while; omitted parts match anything."""
    return WhilePattern(init or wildcard(), cond or wildcard(), body or wildcard())


def is_call(callee: str | DFPattern | None = None) -> CallPattern:
    """Calls of `callee` (a function name, a pattern of the function, or None: any)."""
    return CallPattern(callee)
