"""Pictures of graphs: `-t dot`, `-t svg` (Graphviz), and before/after pairs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import onnx
import pytest

from graph_opt.testing.model_zoo import conv_chain

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "conv_bn_relu.onnx"
COND = ROOT / "tests" / "formats" / "tensorflow" / "fixtures" / "cond_v2.pb"


def graph_opt(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["graph-opt", *map(str, args)], capture_output=True, text=True, env=env
    )


def test_dot_shows_ops_typed_edges_and_collapses_constants(tmp_path: Path):
    result = graph_opt(EXAMPLE, "-o", tmp_path / "g.dot")
    assert result.returncode == 0, result.stderr
    dot = (tmp_path / "g.dot").read_text()
    nodes = re.findall(r"^\s*(n\d+) \[label=\"([^\"]*)\"", dot, re.M)
    labels = [label for _, label in nodes]
    assert [label.split("\\n")[0] for label in labels] == [
        "%input", "nn.conv", "nn.batch_norm", "nn.relu", "return",
    ]  # fmt: skip
    assert "conv1.weight: 8x3x3x3 f32" in labels[1]  # a constant, in its user's label
    assert "nn.constant" not in dot
    edges = re.findall(r"-> n\d+ \[label=\"([^\"]*)\"\]", dot)
    assert edges == ["1x3x16x16 f32"] + ["1x8x16x16 f32"] * 3


def test_regions_are_clusters(tmp_path: Path):
    result = graph_opt(COND, "-t", "dot", "-o", tmp_path / "g.dot")
    assert result.returncode == 0, result.stderr
    dot = (tmp_path / "g.dot").read_text()
    assert 'label="scf.if region 0"' in dot and 'label="scf.if region 1"' in dot


needs_graphviz = pytest.mark.skipif(
    shutil.which("dot") is None,
    reason="needs Graphviz's `dot` (optional system dependency: apt-get install graphviz)",
)


@needs_graphviz
def test_svg_of_a_1000_op_model_and_a_before_after_pair(tmp_path: Path):
    model = tmp_path / "chain.onnx"
    onnx.save(conv_chain(1000), model)
    result = graph_opt(model, "-p", "fold-bn", "--emit-before", tmp_path / "before.svg",
                       "-o", tmp_path / "after.svg")  # fmt: skip
    assert result.returncode == 0, result.stderr
    before = (tmp_path / "before.svg").read_text()
    after = (tmp_path / "after.svg").read_text()
    assert before.startswith("<?xml") and after.startswith("<?xml")
    assert before.count("nn.batch_norm") > 0 and after.count("nn.batch_norm") == 0


def test_svg_without_graphviz_is_a_one_line_error(tmp_path: Path):
    env = dict(os.environ, PATH=os.path.dirname(os.path.realpath(_graph_opt())))
    result = graph_opt(EXAMPLE, "-o", tmp_path / "g.svg", env=env)
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and "needs Graphviz's `dot`" in result.stderr
    assert not (tmp_path / "g.svg").exists()


def _graph_opt() -> str:
    return shutil.which("graph-opt")
