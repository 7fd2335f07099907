"""Regression tests for what graph-opt's own fuzzers found (graph_opt/testing/fuzz)."""

import shutil
import subprocess
from pathlib import Path

GRAPH_OPT = shutil.which("graph-opt") or "graph-opt"


def test_truncated_string_literal_fails_fast(tmp_path: Path):
    """A .mlir file cut inside a hex constant: xDSL's string-literal regex
    backtracked exponentially (minutes for 100 hex digits); now one line, at once."""
    path = tmp_path / "cut.mlir"
    path.write_text(
        "func.func @f() -> tensor<4xf32> {\n"
        '  %0 = "nn.constant"() <{value = dense<"0x' + "3F8000" * 40 + "\n"
    )
    result = subprocess.run(
        [GRAPH_OPT, str(path)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert "End of file reached before closing string literal" in line
