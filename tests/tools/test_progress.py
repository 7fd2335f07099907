"""Progress on stderr for long work, only when stderr is a terminal and not --quiet."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

import numpy as np

EXAMPLE = Path(__file__).parents[2] / "examples" / "conv_bn_relu.onnx"


def calibrate(tmp_path: Path, *extra: str, terminal: bool) -> str:
    samples = tmp_path / "samples.npz"
    rng = np.random.default_rng(0)
    np.savez(samples, input=rng.standard_normal((16, 1, 3, 16, 16)).astype(np.float32))
    command = ["graph-opt", str(EXAMPLE), "-p", f'calibrate{{inputs="{samples}"}}',
               "-o", str(tmp_path / "out.mlir"), *extra]  # fmt: skip
    if not terminal:
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stderr
    leader, follower = pty.openpty()
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=follower) as run:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            chunks.append(chunk)
    os.close(leader)
    assert run.returncode == 0
    return b"".join(chunks).decode(errors="replace")


def test_progress_shows_on_a_terminal(tmp_path: Path):
    stderr = calibrate(tmp_path, terminal=True)
    assert "calibrate:" in stderr and "/16 " in stderr  # one step per sample


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path):
    assert calibrate(tmp_path, terminal=False) == ""


def test_quiet_silences_progress(tmp_path: Path):
    assert "calibrate" not in calibrate(tmp_path, "--quiet", terminal=True)
