"""`--crash-reproducer`: a failing pass leaves its input and the pass, replayable in one command."""

import shlex

import pytest
from toolkit_support import BROKEN, graph_opt

from graph_opt import api, plugins

MODULE = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = nn.constant dense<1.0> : tensor<1xf32>
  %a = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %d = nn.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = nn.sub %d, %c : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
"""


@pytest.mark.parametrize(
    "broken, message",
    [
        ("sub-const-to-add-crash", "tuple index out of range"),
        ("sub-const-to-add-bad-type", "but the operands imply tensor<4xf32>"),
    ],
)
def test_reproducer_holds_the_input_of_the_failing_pass(tmp_path, broken, message):
    (tmp_path / "in.mlir").write_text(MODULE)
    result = graph_opt(
        "in.mlir",
        "--load-pass-plugin",
        BROKEN,
        "-p",
        f"cse,{broken},dce",
        "--crash-reproducer",
        "repro.mlir",
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    error, note = result.stderr.splitlines()
    assert message in error
    assert f"pass '{broken}' failed; its input is in repro.mlir" in note
    text = (tmp_path / "repro.mlir").read_text()
    assert f"// RUN: graph-opt %s -p {broken} --load-pass-plugin {BROKEN}" in text
    assert f"// pipeline: cse,{broken},dce (pass 2 of 3)" in text
    assert text.count("nn.relu") == 1  # cse ran before: the module as it entered

    # The note's command replays the failure, from any directory.
    replay = shlex.split(note.split("replay: ", 1)[1])
    assert replay[0] == "graph-opt"
    replay[1] = str(tmp_path / replay[1])
    replayed = graph_opt(*replay[1:], cwd=tmp_path.parent)
    assert replayed.returncode == 1 and message in replayed.stderr


def test_no_reproducer_when_nothing_fails(tmp_path):
    (tmp_path / "in.mlir").write_text(MODULE)
    result = graph_opt(
        "in.mlir", "-p", "cse", "--crash-reproducer", "repro.mlir", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "repro.mlir").exists()


def test_no_reproducer_for_an_input_that_does_not_verify(tmp_path):
    (tmp_path / "in.mlir").write_text(
        MODULE.replace("-> tensor<4xf32>\n  func", "-> tensor<5xf32>\n  func", 1)
    )
    result = graph_opt(
        "in.mlir", "-p", "cse", "--crash-reproducer", "repro.mlir", cwd=tmp_path
    )
    assert result.returncode == 1
    assert not (tmp_path / "repro.mlir").exists()


def test_api_writes_the_reproducer(tmp_path):
    plugins.load_plugin(str(BROKEN))
    with pytest.raises(IndexError):
        api.run(
            api.parse(MODULE),
            "cse,sub-const-to-add-crash",
            crash_reproducer=tmp_path / "r.mlir",
        )
    text = (tmp_path / "r.mlir").read_text()
    assert "// RUN: graph-opt %s -p sub-const-to-add-crash" in text
    api.parse(text)  # the module part parses
