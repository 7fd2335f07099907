"""Why a pattern did not match: a failure, its reason and the failures that caused it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

if TYPE_CHECKING:
    from graph_opt.patterns.pattern import DFPattern


@dataclass
class Failure:
    """Why `pattern` did not match `subject`, possibly because of a sub-pattern's failure."""

    pattern: DFPattern
    subject: SSAValue | Operation
    reason: str
    args: tuple[Any, ...]
    causes: tuple[Failure, ...] = ()

    def lines(self, depth: int = 0) -> Iterator[str]:
        text = self.reason.format(*(text_of(a) for a in self.args))
        yield f"{'  ' * depth}{self.pattern} on {describe(self.subject)}: {text}"
        for cause in self.causes:
            yield from cause.lines(depth + 1)

    def __str__(self) -> str:
        return "\n".join(self.lines())


def describe(subject: SSAValue | Operation) -> str:
    if isinstance(subject, Operation):
        hints = [r.name_hint for r in subject.results if r.name_hint]
        return f"{subject.name} defining %{hints[0]}" if hints else subject.name
    name = f"%{subject.name_hint}" if subject.name_hint else "a value"
    if isinstance(subject, OpResult):
        return f"{name} (result #{subject.index} of {subject.op.name})"
    assert isinstance(subject, BlockArgument)
    return f"{name} (block argument #{subject.index})"


def text_of(arg: Any) -> str:
    return describe(arg) if isinstance(arg, SSAValue | Operation) else str(arg)
