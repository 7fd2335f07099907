"""The decorators that fill the frontends' op tables."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")
F = TypeVar("F", bound=Callable)


def registrar(table: dict[K, F]) -> Callable[..., Callable[[F], F]]:
    """`@register(key, ...)`: the decorated function goes into `table` under each key."""

    def register_under(*keys: K) -> Callable[[F], F]:
        def register(fn: F) -> F:
            for key in keys:
                table[key] = fn
            return fn

        return register

    return register_under
