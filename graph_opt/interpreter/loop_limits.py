"""How long one run of a loop may take in the interpreter (scf.while, scf.for,
ONNX's Loop): 1,000,000 iterations or 30 seconds unless `loop_limit` says
otherwise; past either, `LoopTooLong` names the loop."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from graph_opt.interpreter.limits import op_kind

DEFAULT_MAX_LOOP_ITERATIONS = 1_000_000
DEFAULT_MAX_LOOP_SECONDS = 30.0


@dataclass(frozen=True)
class LoopLimit:
    max_iterations: int = DEFAULT_MAX_LOOP_ITERATIONS
    max_seconds: float = DEFAULT_MAX_LOOP_SECONDS


_LOOP_LIMIT: ContextVar[LoopLimit] = ContextVar(
    "loop_limit",
    default=LoopLimit(),  # noqa: B039 (frozen)
)


class LoopTooLong(InterpretationError):
    """A loop went past the iteration or time limit; the run stops."""


@contextmanager
def loop_limit(
    max_iterations: int | None = None, max_seconds: float | None = None
) -> Iterator[None]:
    """Run the body with other loop limits (iterations and seconds per loop run)."""
    token = _LOOP_LIMIT.set(_loop_limit(max_iterations, max_seconds))
    try:
        yield
    finally:
        _LOOP_LIMIT.reset(token)


def set_loop_limit(
    max_iterations: int | None = None, max_seconds: float | None = None
) -> None:
    """Set the loop limits for the rest of this context (the command-line tools)."""
    _LOOP_LIMIT.set(_loop_limit(max_iterations, max_seconds))


def _loop_limit(max_iterations: int | None, max_seconds: float | None) -> LoopLimit:
    current = _LOOP_LIMIT.get()
    return LoopLimit(
        current.max_iterations if max_iterations is None else max_iterations,
        current.max_seconds if max_seconds is None else max_seconds,
    )


class LoopBudget:
    """One run of a loop (`what` names it), counted against the limits."""

    def __init__(self, what: str):
        self.what = what
        self.limit = _LOOP_LIMIT.get()
        self.deadline = time.monotonic() + self.limit.max_seconds
        self.iterations = 0

    def step(self) -> None:
        """Count an iteration about to start; raise LoopTooLong past a limit."""
        self.iterations += 1
        if self.iterations > self.limit.max_iterations:
            raise LoopTooLong(
                f"{self.what} did not stop within {self.limit.max_iterations:,} "
                "iterations (--max-loop-iterations)"
            )
        if time.monotonic() > self.deadline:
            raise LoopTooLong(
                f"{self.what} did not stop within {self.limit.max_seconds:g} s "
                f"({self.iterations - 1:,} iterations; --max-loop-seconds)"
            )


def loop_name(op: Operation) -> str:
    """How a loop is named in errors: its kind and the name of its first result."""
    from graph_opt.dialects.nn.names import location_names, op_result_names

    names = location_names(op) or [n for n in op_result_names(op) if n]
    return f"{op_kind(op)} '{names[0]}'" if names else op_kind(op)
