"""What a hostile input is: a model directory laid out next to a decoy, the
command that reads it, and how graph-opt must treat it.

Each generator (hostile_onnx, hostile_tf) fills `space.model` from a seeded
generator and returns a `Hostile`. Beside the model lie the decoys a careless
reader would reach: `outside/` (files that symlinks and `..` point at), `cwd/`
(the run's working directory, holding a copy of the model's data under the
names the model uses) and /proc/self/environ, whose first variable is DECOY.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

ACCEPT = "accept"
"""A valid model: must be read correctly."""
REFUSE = "refuse"
"""Corrupt or reaching outside: must exit non-zero with one line."""
BOUNDED = "bounded"
"""A bomb: refused in one line, or done within the time and memory limits."""
EITHER = "either"
"""Allowed either way (a symlink that stays inside the model's directory)."""

OPTIMIZE = ("-p", "optimize", "-t", "onnx")
"""graph-opt's arguments after the input, as in the malformed-input campaign."""

DECOY = b"DCOY" * 64
"""The decoy files' bytes, and the value of the first environment variable."""
DECOY_VARIABLE = "GRAPH_OPT_FUZZ_DECOY"


@dataclass(frozen=True)
class Workspace:
    root: Path

    @property
    def model(self) -> Path:
        return self.root / "model"

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    @property
    def cwd(self) -> Path:
        return self.root / "cwd"

    @property
    def out(self) -> Path:
        return self.root / "out"

    def create(self) -> Workspace:
        for folder in (self.model, self.outside, self.cwd, self.out):
            folder.mkdir(parents=True)
        return self

    def decoy(self, name: str, data: bytes = DECOY) -> Path:
        """A file outside the model's directory, and its twin in the working
        directory (what a relative name resolved against it reaches)."""
        (self.cwd / name).parent.mkdir(parents=True, exist_ok=True)
        (self.cwd / name).write_bytes(data)
        path = self.outside / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path


@dataclass(frozen=True)
class Hostile:
    name: str
    """The mutation, e.g. `saved_model:shard_symlink_out`."""
    expect: str
    tool: str
    """`graph-opt` or `graph-opt-run`."""
    args: tuple[str, ...]
    """The command's arguments, output excluded (the runner adds `-o`)."""
    output_suffix: str = ".onnx"
    stdin: Path | None = None


def link(path: Path, target: str | Path) -> None:
    """Replace `path` by a symlink to `target` (relative targets stay relative)."""
    path.unlink(missing_ok=True)
    os.symlink(target, path)


def fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def device(path: Path, rng) -> str:
    """Replace `path` by an endless character device: a node of /dev/zero where
    the process may make one (`node`), else a symlink to one (`link`)."""
    target = str(rng.choice(["/dev/zero", "/dev/urandom"]))
    path.unlink(missing_ok=True)
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.stat(target).st_rdev)
        return "node"
    except OSError:
        os.symlink(target, path)
        return "link"


def input_size(space: Workspace, hostile: Hostile) -> int:
    """Bytes of the regular files the input is made of (symlinks not followed)."""
    total = 0
    for folder, _, files in os.walk(space.model):
        for name in files:
            status = os.lstat(os.path.join(folder, name))
            if stat.S_ISREG(status.st_mode):
                total += status.st_size
    if hostile.stdin is not None:
        total += hostile.stdin.stat().st_size
    return total
