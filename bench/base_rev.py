"""Timing this checkout against another revision of graph-opt, side by side.

`checkout(rev, into)` unpacks the revision with `git archive` (no worktree);
`interleaved` runs each command once per checkout in turn (A, B, A, B, ...),
so load from the other engineers on a shared machine falls on both alike.
A command is `python -c code args` with PYTHONPATH set to the checkout.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def checkout(rev: str, into: Path) -> Path:
    """The tree of `rev` unpacked under `into` (`rev` itself when it is a
    directory: a checkout made before); exits with a one-line message when git
    does not know `rev`."""
    if Path(rev).is_dir():
        return Path(rev).resolve()
    target = into / "base"
    target.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev], capture_output=True
    )
    if archive.returncode != 0:
        sys.exit(f"--base {rev}: {archive.stderr.decode().strip().splitlines()[-1]}")
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def seconds_in(tree: Path, code: str, *args: str) -> float:
    """Run `code` with graph-opt from `tree`; the `seconds` it prints as JSON last."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
        raise RuntimeError(f"{tree}: {lines[-1][:200]}")
    return json.loads(done.stdout.strip().splitlines()[-1])["seconds"]


def interleaved(trees: Sequence[Path], runs: int, code: str, *args: str) -> list[float]:
    """Median seconds of `code` per tree, over `runs` rounds of one run per tree."""
    timings: list[list[float]] = [[] for _ in trees]
    for _ in range(runs):
        for tree, times in zip(trees, timings):
            times.append(seconds_in(tree, code, *args))
    return [statistics.median(times) for times in timings]
