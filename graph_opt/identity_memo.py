"""Values remembered per object identity, for attributes whose hash costs more than the work saved."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    """A value per (object, key) by the object's id; each entry keeps its object
    alive, so the id cannot be reused. Forgets everything at `limit` entries."""

    def __init__(self, limit: int):
        self.limit = limit
        self.entries: dict[tuple[int, Hashable], tuple[object, V]] = {}

    def get(self, obj: object, key: Hashable = None) -> V | None:
        found = self.entries.get((id(obj), key))
        return found[1] if found is not None and found[0] is obj else None

    def put(self, obj: object, value: V, key: Hashable = None) -> V:
        if len(self.entries) >= self.limit:
            self.entries.clear()
        self.entries[(id(obj), key)] = (obj, value)
        return value
