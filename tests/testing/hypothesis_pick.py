"""The `Pick` of graph_opt.testing.opaque_variants drawn by hypothesis, so that
the generators the bench scripts run with numpy also run under hypothesis."""

from __future__ import annotations

from hypothesis import strategies as st


class HypothesisPick:
    def __init__(self, data) -> None:
        self.data = data

    def integer(self, low, high):
        return self.data.draw(st.integers(low, high))

    def real(self, low, high):
        return self.data.draw(st.floats(low, high, allow_nan=False))

    def choice(self, options):
        return self.data.draw(st.sampled_from(options))
