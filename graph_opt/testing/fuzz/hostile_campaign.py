"""The hostile-file campaign: every generator of hostile_onnx, hostile_tf and
hostile_bombs, `rounds` times each with its own seed, `jobs` runs at a time; each finding is
written to the findings folder with the model's files and the command that
rebuilds the case:

    python -m graph_opt.testing.fuzz.hostile_campaign KIND SEED ROUND DIR
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from graph_opt.testing.fuzz.hostile_bombs import BOMBS
from graph_opt.testing.fuzz.hostile_inputs import Hostile, Workspace, input_size
from graph_opt.testing.fuzz.hostile_onnx import ONNX_HOSTILE
from graph_opt.testing.fuzz.hostile_runs import (
    RSS_LIMIT,
    TIME_LIMIT,
    Verdict,
    command,
    run_hostile,
)
from graph_opt.testing.fuzz.hostile_tf import TF_HOSTILE

GENERATORS = {f.__name__: f for f in (*ONNX_HOSTILE, *TF_HOSTILE, *BOMBS)}


@dataclass
class HostileReport:
    inputs: int = 0
    reads_outside: int = 0
    """Inputs that made graph-opt read a file outside the model's directory."""
    accepted: int = 0
    """Inputs that must be refused and were not."""
    tracebacks: int = 0
    other: int = 0
    """Inputs with any other problem: time, memory, signal, error lines, a
    valid input refused."""
    slowest: float = 0.0
    peak_rss: int = 0
    largest_input: int = 0
    findings: list[str] = field(default_factory=list)
    outcomes: Counter = field(default_factory=Counter)
    """(input kind, "exit 0" / "refused" / "killed") counts."""

    @property
    def passed(self) -> bool:
        return not (
            self.reads_outside or self.accepted or self.tracebacks or self.other
        )

    def summary(self) -> str:
        status = "PASS" if self.passed else "FAIL"
        return (
            f"hostile[{status}]: {self.inputs} inputs (largest "
            f"{self.largest_input / 1024:.0f} KiB), {self.reads_outside} reads outside, "
            f"{self.accepted} corrupt accepted, {self.tracebacks} tracebacks, "
            f"{self.other} other problems; slowest {self.slowest:.1f} s "
            f"(limit {TIME_LIMIT:.0f}), peak {-(-self.peak_rss >> 20)} MiB "
            f"(limit {RSS_LIMIT >> 20})"
        )

    def add(self, name: str, verdict: Verdict, size: int) -> None:
        self.inputs += 1
        code = verdict.run.returncode
        self.outcomes[
            name, "exit 0" if code == 0 else "refused" if code > 0 else "killed"
        ] += 1
        self.reads_outside += bool(verdict.outside)
        self.accepted += verdict.accepted
        self.tracebacks += verdict.traceback
        self.other += any(not p.startswith("traceback") for p in verdict.problems)
        self.slowest = max(self.slowest, verdict.run.seconds)
        self.peak_rss = max(self.peak_rss, verdict.run.peak_rss)
        self.largest_input = max(self.largest_input, size)


def build(kind: str, seed: int, round_: int, root: Path) -> tuple[Workspace, Hostile]:
    """The case `kind` of round `round_`, laid out under `root`."""
    space = Workspace(root).create()
    rng = np.random.default_rng([seed, round_, list(GENERATORS).index(kind)])
    return space, GENERATORS[kind](space, rng)


def run_hostile_campaign(
    rounds: int, seed: int, findings: Path, log=print, jobs: int | None = None,
    kinds: list[str] | None = None,
) -> HostileReport:  # fmt: skip
    cases = [(kind, r) for r in range(rounds) for kind in kinds or GENERATORS]
    report = HostileReport()
    with (
        tempfile.TemporaryDirectory() as tmp,
        ThreadPoolExecutor(jobs or os.cpu_count()) as pool,
    ):

        def check(case):
            kind, round_ = case
            space, hostile = build(kind, seed, round_, Path(tmp) / f"{kind}_{round_}")
            size = input_size(space, hostile)
            return space, hostile, size, run_hostile(space, hostile)

        for (kind, round_), (space, hostile, size, verdict) in zip(
            cases, pool.map(check, cases)
        ):
            report.add(hostile.name, verdict, size)
            found = verdict.findings()
            for problem in found:
                text = f"{hostile.name} (seed {seed}, round {round_}): {problem}"
                report.findings.append(text)
                log(f"  FINDING {text}")
            if found:
                record_finding(findings / f"hostile_{kind}_{seed}_{round_}", space, hostile, found,
                        (kind, seed, round_))  # fmt: skip
    return report


def record_finding(
    folder: Path, space: Workspace, hostile: Hostile, found, case
) -> None:
    """The model's regular files and links (no FIFO or device), and how to
    rebuild the whole case."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(space.model, folder / "model", symlinks=True, ignore=_special)
    rebuild = " ".join(map(str, case))
    lines = [
        f"{hostile.name} (expected: {hostile.expect})",
        *found,
        f"rebuild: python -m graph_opt.testing.fuzz.hostile_campaign {rebuild} DIR",
        f"then: {_shell(space, hostile)}".replace(str(space.root), "DIR"),
    ]
    (folder / "findings.txt").write_text("\n".join(lines) + "\n")


def _special(folder: str, names: list[str]) -> list[str]:
    def special(name: str) -> bool:
        mode = os.lstat(os.path.join(folder, name)).st_mode
        return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))

    return [name for name in names if special(name)]


def main(argv: list[str]) -> int:
    """Rebuild one case in DIR and print its command."""
    kind, seed, round_, folder = argv
    space, hostile = build(kind, int(seed), int(round_), Path(folder))
    print(_shell(space, hostile))
    return 0


def _shell(space: Workspace, hostile: Hostile) -> str:
    """The case's command as a shell line, run where the campaign runs it."""
    tool = shlex.join(command(space, hostile, Path("opened.log"))[3:])
    stdin = f" < {shlex.quote(str(hostile.stdin))}" if hostile.stdin else ""
    return f"cd {shlex.quote(str(space.cwd))} && {tool}{stdin}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
