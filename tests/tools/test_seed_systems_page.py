"""docs/seed-systems.md: every graph-opt name its tables give (a pass with its
options, a `graph-opt` flag, an `api.` or `graph_opt.patterns.` name, an `nn`
op) exists, so the page cannot drift from the code."""

import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

from graph_opt import api
from graph_opt.dialects.nn import NN

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "seed-systems.md"
SEEDS = (
    "TF contrib/quantize: graph_matcher and batch-norm folding",
    "Grappler",
    "TVM's dataflow pattern language and Relax's DPL",
    "TF quantization-aware training (contrib/quantize)",
    "TVM's TensorFlow frontend",
)

PASS_SPEC = re.compile(r"[a-z][a-z0-9-]*(\{.*\})?")
CODE_SPAN = re.compile(r"`([^`]+)`")
CELL_SPLIT = re.compile(r"(?<!\\)\|")


def tables(text: str) -> dict[str, list[list[str]]]:
    """Each `## ` section's table rows (header and rule left out), as cells."""
    found: dict[str, list[list[str]]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("|"):
            cells = [
                c.strip().replace("\\|", "|") for c in CELL_SPLIT.split(line)[1:-1]
            ]
            found.setdefault(section, []).append(cells)
    return {name: rows[2:] for name, rows in found.items()}


def cli_flags() -> set[str]:
    help_text = subprocess.run(
        [sys.executable, "-m", "graph_opt", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(re.findall(r"--[a-z][a-z0-9-]*", help_text))


def problems(graph_opt_cells: list[str], flags: set[str]) -> list[str]:
    """What in these graph-opt cells names nothing graph-opt has."""
    nn_ops = {op.name for op in NN.operations}
    found = []
    for cell in graph_opt_cells:
        for span in CODE_SPAN.findall(cell):
            if PASS_SPEC.fullmatch(span):
                try:
                    api.pipeline(span)
                except Exception as error:  # a PipelineError, one line per cause
                    found.append(f"{span}: {str(error).splitlines()[0]}")
            if span.startswith("--") and span.split("=")[0] not in flags:
                found.append(f"{span}: not a graph-opt option")
            for name in re.findall(r"\bapi\.(\w+)", span):
                if not hasattr(api, name):
                    found.append(f"api.{name}: not in graph_opt.api")
            for name in re.findall(r"\bgraph_opt\.patterns(?:\.\w+)+", span):
                try:
                    pkgutil.resolve_name(name)
                except (ImportError, AttributeError):
                    found.append(f"{name}: does not resolve")
            for name in re.findall(r"\bnn\.\w+", span):
                if name not in nn_ops:
                    found.append(f"{name}: not an op of the nn dialect")
    return found


@pytest.fixture(scope="module")
def page_tables() -> dict[str, list[list[str]]]:
    return tables(PAGE.read_text())


def test_one_table_per_seed_system_with_three_columns(page_tables):
    assert set(page_tables) == set(SEEDS)
    for seed, rows in page_tables.items():
        assert len(rows) >= 5, seed
        assert all(len(row) == 3 for row in rows), seed


def test_the_page_is_in_the_site_navigation():
    assert "seed-systems.md" in (ROOT / "mkdocs.yml").read_text()


def test_every_graph_opt_name_on_the_page_exists(page_tables):
    cells = [row[1] for rows in page_tables.values() for row in rows]
    assert problems(cells, cli_flags()) == []


def test_what_graph_opt_lacks_says_why(page_tables):
    unsupported = [
        row[1]
        for rows in page_tables.values()
        for row in rows
        if row[1].startswith("not supported")
    ]
    assert len(unsupported) >= 5
    assert all(re.match(r"not supported[^:]*: \S", cell) for cell in unsupported)


def test_the_check_catches_names_graph_opt_does_not_have():
    cells = [
        "`no-such-pass`, `fold-bn{no-such-option=1}`",
        "`--no-such-flag`, `api.no_such_function`",
        "`graph_opt.patterns.no_such_builder`, `nn.no_such_op`",
        "`quantize{per-channel=true}`, `--input-shape`, `api.load`, `nn.matmul`",
    ]
    found = problems(cells, {"--input-shape"})
    assert [line.split(":")[0] for line in found] == [
        "no-such-pass",
        "fold-bn{no-such-option=1}",
        "--no-such-flag",
        "api.no_such_function",
        "graph_opt.patterns.no_such_builder",
        "nn.no_such_op",
    ]
