"""Deep nesting: real depths parse; past the limit, a one-line error that says so."""

import subprocess
from pathlib import Path


def graph_opt(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["graph-opt", *map(str, args)], capture_output=True, text=True
    )


def test_thousands_of_nested_regions_parse(tmp_path: Path):
    source = tmp_path / "deep.mlir"
    source.write_text("builtin.module {\n" * 2000 + "}\n" * 2000)
    result = graph_opt(source, "-o", tmp_path / "out.mlir")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.mlir").read_text().count("builtin.module") == 2000


def test_nesting_past_the_limit_names_it(tmp_path: Path):
    """A GraphDef attribute nested 3,000 deep (function attributes in function
    attributes) exceeds the parser's recursion limit."""
    level = "func { name: 'f' attr { key: 'k' value { "
    text = ("node { name: 'a' op: 'Const' attr { key: 'k' value { " + level * 3000
            + "s: 'x'" + " } } }" * 3000 + " } } }")  # fmt: skip
    source = tmp_path / "deep.pbtxt"
    source.write_text(text)
    result = graph_opt(source)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert (
        "nests too deeply" in result.stderr
        and "recursion limit (20000" in result.stderr
    )
    assert "Traceback" not in result.stderr
