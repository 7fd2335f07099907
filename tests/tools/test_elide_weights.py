"""--elide-weights[=N]: readable printouts without the weights' bytes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "examples" / "conv_bn_relu.onnx"


def graph_opt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["graph-opt", str(EXAMPLE), *args], capture_output=True, text=True
    )


def test_large_constants_are_elided_small_ones_printed():
    result = graph_opt("--elide-weights")
    assert result.returncode == 0, result.stderr
    assert (
        "%conv1.weight = nn.constant dense_resource<__elided__> : tensor<8x3x3x3xf32>"
        in result.stdout
    )
    assert "%conv1.bias = nn.constant dense<[" in result.stdout  # 8 elements <= 16


def test_the_limit_is_an_option():
    result = graph_opt("--elide-weights=0")
    assert result.returncode == 0, result.stderr
    assert "dense<" not in result.stdout
    assert result.stdout.count("dense_resource<__elided__>") == 6


@pytest.mark.parametrize(
    "args",
    [["-t", "onnx", "-o", "out.onnx"], ["--print-op-generic"], ["--elide-weights=-1"]],
)
def test_refused_where_the_weights_must_stay(args: list[str], tmp_path: Path):
    args = [str(tmp_path / a) if a.endswith(".onnx") else a for a in args]
    extra = [] if any(a.startswith("--elide") for a in args) else ["--elide-weights"]
    result = graph_opt(*extra, *args)
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and "--elide-weights" in result.stderr
