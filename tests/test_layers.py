"""The layers of graph_opt hold: `lint-imports` checks the contract in
pyproject.toml ([tool.importlinter]), so no module imports from a layer above
its own and no import cycle spans two packages."""

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_imports_follow_the_layers():
    lint_imports = shutil.which("lint-imports")
    assert lint_imports is not None, (
        "import-linter is in the test extra: pip install -e '.[test]'"
    )
    # graph_opt as this checkout has it, not an installed copy
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [lint_imports, "--no-cache"],
        cwd=ROOT,  # lint-imports reads [tool.importlinter] from pyproject.toml here
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
