"""A hostile input through its command, in a child with an audit hook
(`audit.py`), killed past TIME_LIMIT or RSS_LIMIT; judged on the files it
read, on whether it refused what it must, and as any malformed input is
(`cli_runs.problems`: one line, no traceback, no partial output)."""

from __future__ import annotations

import mmap
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from graph_opt.testing.fuzz import audit
from graph_opt.testing.fuzz.cli_runs import Run, checkout_env, problems, run_limited
from graph_opt.testing.fuzz.hostile_inputs import (
    ACCEPT,
    DECOY,
    DECOY_VARIABLE,
    REFUSE,
    Hostile,
    Workspace,
)

TIME_LIMIT = 60.0
RSS_LIMIT = 512 << 20
SIZE_LIMIT = 1 << 20
"""The limits hold on every input smaller than this."""


@dataclass
class Verdict:
    run: Run
    outside: list[str] = field(default_factory=list)
    """Files read outside the model's directory (or the decoy found in the output)."""
    accepted: bool = False
    """Exit 0 on an input that must be refused."""
    problems: list[str] = field(default_factory=list)
    """Everything else wrong, as `cli_runs.problems` words it."""

    @property
    def traceback(self) -> bool:
        return any(p.startswith("traceback") for p in self.problems)

    def findings(self) -> list[str]:
        found = [f"read outside the model: {path}" for path in self.outside]
        if self.accepted:
            found.append("exit 0 on an input that must be refused")
        return found + self.problems


def output_path(space: Workspace, hostile: Hostile) -> Path:
    return space.out / f"out{hostile.output_suffix}"


def command(space: Workspace, hostile: Hostile, log: Path) -> list[str]:
    """The audited command (the tool's own: drop its first three words)."""
    return [sys.executable, audit.__file__, str(log), hostile.tool, *hostile.args,
            "-o", str(output_path(space, hostile))]  # fmt: skip


def run_hostile(space: Workspace, hostile: Hostile) -> Verdict:
    log = space.root / "opened.log"
    output = output_path(space, hostile)
    env = checkout_env({DECOY_VARIABLE: DECOY.decode()})
    with open(hostile.stdin or os.devnull, "rb") as stdin:
        run = run_limited(
            command(space, hostile, log), output, env, TIME_LIMIT, RSS_LIMIT,
            cwd=space.cwd, stdin=stdin,
        )  # fmt: skip
    allowed = [space.model, space.out] + ([hostile.stdin] if hostile.stdin else [])
    verdict = Verdict(run, audit.reads_outside(log, allowed, space.root))
    if run.output_written and _holds(output, DECOY[:12]):
        verdict.outside.append(f"the decoy's bytes are in the output {output.name}")
    verdict.accepted = hostile.expect == REFUSE and run.returncode == 0
    verdict.problems = problems(run, False, TIME_LIMIT, RSS_LIMIT)
    if hostile.expect == ACCEPT and run.returncode != 0:
        last = run.stderr.strip().splitlines()[-1:] or [""]
        verdict.problems.append(f"refused a valid input: {last[0][:200]}")
    return verdict


def _holds(path: Path, data: bytes) -> bool:
    """Whether the file holds `data` (mapped, not read: it may be large)."""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size < len(data):
            return False
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return mapped.find(data) >= 0
