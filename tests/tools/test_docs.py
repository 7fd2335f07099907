"""The docs site: a generated reference page for every registered pass (with its
options, tests and an example), every pass in the overview, a README a newcomer
reads first, and (where mkdocs is installed, as `.ci/run` installs it) a strict
build."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from graph_opt.passes import get_all_passes
from graph_opt.tools.pass_docs import option_fields
from graph_opt.tools.pass_reference import example, pass_pages, reported_statistics

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return pass_pages(ROOT)


def test_every_registered_pass_has_a_page_named_by_it(pages):
    assert set(pages) == {f"passes/{name}.md" for name in get_all_passes()}
    for name in get_all_passes():
        assert pages[f"passes/{name}.md"].startswith(f"# {name}\n")


def test_each_page_lists_every_option_with_type_and_default(pages):
    for name, get in get_all_passes().items():
        page = pages[f"passes/{name}.md"]
        fields = option_fields(get())
        for option, kind, default, _ in fields:
            row = f"| `{option}` | `{kind}` | `{default}` |"
            assert row in page, (name, row)
        if not fields:
            assert "## Options\n\nNone." in page


def test_fold_bn_page_has_its_statistics_tests_and_example(pages):
    page = pages["passes/fold-bn.md"]
    assert "| `explain` | `bool` | `false` |" in page
    assert "| `nn.batch_norm folded` | Batch norms folded into the conv" in page
    assert "| `decomposed batch norms (x * s + t) folded` | Batch norms written" in page
    assert "- `tests/filecheck/passes/fold-bn.mlir`" in page
    example_part = page.split("## Example", 1)[1]
    assert (
        "nn.batch_norm %y" in example_part
        and "CHECK-NOT: nn.batch_norm" in example_part
    )


def test_statistics_read_from_source_include_f_strings_and_imported_helpers():
    from graph_opt.passes.schedule_memory import ScheduleMemoryPass

    assert "ops moved in {where}" in reported_statistics(ScheduleMemoryPass)
    from graph_opt.passes.quantize.quantize import QuantizePass

    keys = reported_statistics(QuantizePass)
    assert "layers quantized" in keys
    # quantize imports only a constant from convert_to_int: none of its counts
    assert "convolutions and matrix products int8" not in keys


def test_example_skips_negative_cases(tmp_path):
    path = tmp_path / "p.mlir"
    path.write_text(
        "// RUN: graph-opt %s -p p | filecheck %s\n\n"
        "// CHECK-LABEL: @negative_kept\n"
        "func.func @negative_kept() {\n  func.return\n}\n\n// -----\n\n"
        "/// Why this case exists.\n"
        "// CHECK-LABEL: @changed\n"
        "func.func @changed() {\n  // CHECK: func.return\n  func.return\n}\n"
    )
    run, why, source, checks = example(path, "p")
    assert run == "graph-opt %s -p p | filecheck %s"
    assert why == "Why this case exists."
    assert source.startswith("func.func @changed()") and "CHECK" not in source
    assert checks.splitlines() == ["CHECK-LABEL: @changed", "CHECK: func.return"]


def test_passes_overview_links_every_pass():
    overview = (ROOT / "docs" / "passes" / "index.md").read_text()
    linked = set(re.findall(r"\]\(([a-z-]+)\.md\)", overview))
    assert set(get_all_passes()) <= linked


def test_readme_is_what_a_newcomer_reads_first():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    for page in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / page).is_file(), page


def test_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-d",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "site" / "passes" / "fold-bn" / "index.html").is_file()
