"""An arena plan: an offset for every tensor of one device, so that tensors
live at the same step never share bytes.

Greedy by size with best fit, as TFLite's ArenaPlanner (its "greedy by size"
strategy from Pisarchyk and Lee, "Efficient Memory Management for Deep Neural
Net Inference"): the largest tensors are placed first, each in the smallest
gap between the tensors already placed that are live with it, or after them.
Offsets and sizes are aligned (TFLite: 64 bytes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph_opt.memory.liveness import Tensor

DEFAULT_ALIGNMENT = 64


@dataclass
class Arena:
    offsets: dict[Tensor, int]
    size: int
    alignment: int

    def extent(self, tensor: Tensor) -> tuple[int, int]:
        """The bytes [begin, end) the tensor occupies."""
        begin = self.offsets[tensor]
        return begin, begin + _aligned(tensor.bytes, self.alignment)


def plan_arena(tensors: Sequence[Tensor], alignment: int = DEFAULT_ALIGNMENT) -> Arena:
    order = sorted(
        (t for t in tensors if t.bytes > 0),
        key=lambda t: (-t.bytes, t.start, t.end),
    )
    placed: list[tuple[int, int, Tensor]] = []  # (offset, aligned size, tensor)
    offsets: dict[Tensor, int] = {t: 0 for t in tensors if t.bytes == 0}
    size = 0
    for tensor in order:
        need = _aligned(tensor.bytes, alignment)
        neighbours = sorted(
            (offset, extent)
            for offset, extent, other in placed
            if other.start <= tensor.end and tensor.start <= other.end
        )
        best, best_gap, free_from = None, None, 0
        for offset, extent in neighbours:
            gap = offset - free_from
            if gap >= need and (best_gap is None or gap < best_gap):
                best, best_gap = free_from, gap
            free_from = max(free_from, offset + extent)
        offset = free_from if best is None else best
        offsets[tensor] = offset
        placed.append((offset, need, tensor))
        size = max(size, offset + need)
    return Arena(offsets, size, alignment)


def overlaps(arena: Arena, tensors: Sequence[Tensor]) -> list[tuple[Tensor, Tensor]]:
    """Pairs of tensors live at one step whose bytes overlap (none in a valid plan)."""
    found = []
    sized = sorted((t for t in tensors if t.bytes > 0), key=lambda t: t.start)
    active: list[Tensor] = []
    for tensor in sized:
        active = [t for t in active if t.end >= tensor.start]
        begin, end = arena.extent(tensor)
        for other in active:
            other_begin, other_end = arena.extent(other)
            if begin < other_end and other_begin < end:
                found.append((other, tensor))
        active.append(tensor)
    return found


def _aligned(size: int, alignment: int) -> int:
    return -(-size // alignment) * alignment
