"""Runs the lit + FileCheck suite, so that pytest reports its result."""

import shutil
import subprocess
import sys
from pathlib import Path

FILECHECK_DIR = Path(__file__).parent / "filecheck"


def test_filecheck_suite():
    lit = shutil.which("lit") or f"{sys.executable} -m lit"
    result = subprocess.run(
        [*lit.split(), "-v", "--order=lexical", str(FILECHECK_DIR)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr[-5000:]
    assert "Passed" in result.stdout
