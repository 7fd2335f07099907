"""One format table (graph_opt.formats.dispatch) for the API and the command
line: both read and write exactly the same files."""

import subprocess
import sys

import pytest

from graph_opt import api
from graph_opt.formats.dispatch import INPUT_FORMATS, OUTPUT_FORMATS, SAVED_MODEL
from graph_opt.tools.frontends import register_frontends
from graph_opt.tools.graph_opt_main import GRAPH_OPT_TARGETS, OUTPUT_SUFFIX_TARGETS

RELU = """func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}"""


class _Tool:
    available_frontends: dict


def test_cli_reads_exactly_the_table():
    tool = _Tool()
    tool.available_frontends = {}
    register_frontends(tool)
    assert set(tool.available_frontends) == {*INPUT_FORMATS, SAVED_MODEL}


def test_cli_writes_exactly_the_table():
    pictures = {".dot", ".svg"}
    written = {
        suffix: target
        for suffix, target in OUTPUT_SUFFIX_TARGETS.items()
        if suffix not in pictures
    }
    assert written == {f".{ext}": kind for ext, kind in OUTPUT_FORMATS.items()}
    assert set(OUTPUT_FORMATS.values()) <= set(GRAPH_OPT_TARGETS)


def graph_opt(*args):
    return subprocess.run(
        [sys.executable, "-m", "graph_opt", *map(str, args)],
        capture_output=True,
        text=True,
    )


READ_BACK = sorted(set(OUTPUT_FORMATS) & set(INPUT_FORMATS))
"""The formats written that are read again (a .tflite is written only)."""


@pytest.mark.parametrize("ext", READ_BACK)
def test_what_the_api_saves_both_read(ext, tmp_path):
    path = tmp_path / f"relu.{ext}"
    api.save(api.parse(RELU), path)
    assert "nn.relu" in str(api.load(path))
    done = graph_opt(path)
    assert done.returncode == 0, done.stderr
    assert "nn.relu" in done.stdout


@pytest.mark.parametrize("ext", READ_BACK)
def test_what_the_cli_writes_the_api_reads(ext, tmp_path):
    source = tmp_path / "relu.mlir"
    source.write_text(RELU)
    path = tmp_path / f"out.{ext}"
    done = graph_opt(source, "-o", path)
    assert done.returncode == 0, done.stderr
    assert "nn.relu" in str(api.load(path))


def test_an_unknown_extension_is_mlir_text_for_the_api(tmp_path):
    path = tmp_path / "relu.txt"
    path.write_text(RELU)
    assert "nn.relu" in str(api.load(path))
