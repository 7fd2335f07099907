"""Progress bars on stderr for long work (large imports, calibration over
samples, optimize's steps), with tqdm, when stderr is a terminal; nothing when
it is not, or when `quiet` (`graph-opt --quiet`). Updates come per sample, per
step or per thousand nodes, never per op."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


class _Settings:
    quiet = False


SETTINGS = _Settings()
LARGE_IMPORT = 20_000
"""Nodes from which an import shows progress (smaller ones take well under a second)."""


def enabled() -> bool:
    return not SETTINGS.quiet and sys.stderr.isatty()


def _bar(**options):
    """A tqdm bar on stderr, sized as the terminal (80x24 when it says 0x0, as a
    fresh pseudo-terminal does: tqdm would draw nothing)."""
    from tqdm import tqdm

    size = shutil.get_terminal_size((80, 24))
    return tqdm(
        file=sys.stderr,
        leave=False,
        ncols=size.columns or 80,
        nrows=size.lines or 24,
        **options,
    )


def progress(
    items: Iterable[T], total: int, what: str, minimum: int = 0
) -> Iterable[T]:
    """`items`, with a progress bar when enabled and `total` is at least `minimum`."""
    if total < minimum or not enabled():
        return items
    return _bar(iterable=items, total=total, desc=what)


def chunked_progress(
    items: Iterable[T], total: int, what: str, chunk: int = 1000
) -> Iterator[T]:
    """Like `progress`, for many cheap items: the bar moves once per `chunk`."""
    if total < LARGE_IMPORT or not enabled():
        yield from items
        return
    with _bar(total=total, desc=what) as bar:
        for index, item in enumerate(items, 1):
            yield item
            if index % chunk == 0:
                bar.update(chunk)
        bar.update(total % chunk)


class Steps:
    """A bar of named steps of unknown number (optimize's fixed-point loop)."""

    def __init__(self, what: str):
        self.bar = None
        if enabled():
            self.bar = _bar(desc=what, unit="step")

    def step(self, name: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(name, refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
