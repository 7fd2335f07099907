"""bench/peak_rss.py measures the child's own peak memory, not the parent's it
was forked from (which the kernel's ru_maxrss of a child includes)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.peak_rss import ChildFailed, python_code, run_measured

ALLOCATE = "import numpy as np, sys; a = np.ones(int(sys.argv[1]) << 20, np.uint8)"


def test_the_peak_is_the_childs_own():
    held_by_parent = np.ones(200 << 20, np.uint8)  # 200 MB resident here
    _, small, _ = run_measured(python_code(ALLOCATE, "1"))
    _, large, _ = run_measured(python_code(ALLOCATE, "120"))
    assert held_by_parent.sum() == 200 << 20
    assert small < 100
    assert 120 < large < small + 140


def test_a_failing_child_reports_its_last_line():
    with pytest.raises(ChildFailed, match="ZeroDivisionError"):
        run_measured(python_code("1 / 0"))
