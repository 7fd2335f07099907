"""The lit + FileCheck suite, one pytest test per file, from a single lit run.

lit runs once per session (in parallel, on the files the session selected); each
test asserts its own file's result and shows that file's output when it fails.
"""

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

FILECHECK_DIR = Path(__file__).parent / "filecheck"
SUITE_NAME = "graph-opt"  # config.name in lit.cfg
LIT_FILES = sorted(
    path.relative_to(FILECHECK_DIR).as_posix()
    for suffix in ("*.mlir", "*.test")
    for path in FILECHECK_DIR.rglob(suffix)
    # lit skips `Output` (where %t lives) as it skips `inputs`
    if not {"inputs", "Output"} & set(path.relative_to(FILECHECK_DIR).parts)
)


def selected_files(session: pytest.Session) -> list[str]:
    return sorted(
        {
            item.callspec.params["lit_file"]
            for item in session.items
            if "lit_file" in getattr(getattr(item, "callspec", None), "params", {})
        }
    )


@pytest.fixture(scope="session")
def lit_results(request, tmp_path_factory) -> dict[str, str | None]:
    """Each selected file's failure output (None when it passed)."""
    files = selected_files(request.session) or LIT_FILES
    report = tmp_path_factory.mktemp("lit") / "results.xml"
    lit = shutil.which("lit") or f"{sys.executable} -m lit"
    run = subprocess.run(
        [*lit.split(), "-q", "--xunit-xml-output", str(report), *files],
        cwd=FILECHECK_DIR,
        capture_output=True,
        text=True,
    )
    assert report.exists(), run.stdout[-5000:] + run.stderr[-5000:]
    results = {}
    for case in ElementTree.parse(report).iter("testcase"):
        directory = case.get("classname").removeprefix(SUITE_NAME).lstrip(".")
        name = f"{directory}/{case.get('name')}" if directory else case.get("name")
        failure = case.find("failure")
        skipped = case.find("skipped")
        if failure is not None:
            results[name] = failure.text or "failed"
        elif skipped is not None:
            results[name] = f"skipped by lit: {skipped.get('message')}"
        else:
            results[name] = None
    return results


@pytest.mark.parametrize("lit_file", LIT_FILES)
def test_lit_file(lit_file, lit_results):
    assert lit_file in lit_results, f"lit did not run {lit_file}"
    output = lit_results[lit_file]
    if output is not None:
        pytest.fail(f"{lit_file} failed:\n{output[-20000:]}", pytrace=False)


def test_every_lit_file_is_collected():
    assert len(LIT_FILES) >= 40
    assert "passes/fold-bn.mlir" in LIT_FILES
