"""Passes say what they were asked to do and left undone (GraphOptWarning), and
the command line prints each warning as one line on stderr."""

import re
import subprocess
from pathlib import Path

import pytest

from graph_opt import api
from graph_opt.remarks import GraphOptWarning

EXAMPLE = Path(__file__).parents[2] / "examples" / "conv_bn_relu.onnx"

BN_LEFT = """
func.func @main(%x: tensor<1x1x4x4xf32>, %gamma: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %w = nn.constant dense<1.0> : tensor<2x1x1x1xf32>
  %p = nn.constant dense<1.0> : tensor<2xf32>
  %y = nn.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %z = nn.batch_norm %y, %gamma, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %z : tensor<1x2x4x4xf32>
}
"""


def test_fold_bn_says_how_many_batch_norms_stay_and_why():
    with pytest.warns(
        GraphOptWarning, match=r"folded 0 of 1 batch norms; 1 left.*not a constant"
    ):
        api.run(api.parse(BN_LEFT), "fold-bn")


def test_fold_bn_with_nothing_to_fold_warns():
    module = api.load(EXAMPLE)
    api.run(module, "fold-bn")
    with pytest.warns(GraphOptWarning, match="found no batch norm to fold"):
        api.run(module, "fold-bn")


def test_fold_bn_that_folds_everything_is_silent(recwarn):
    api.run(api.load(EXAMPLE), "fold-bn")
    assert not [w for w in recwarn if issubclass(w.category, GraphOptWarning)]


def test_convert_to_int_without_fake_quantization_warns():
    with pytest.warns(GraphOptWarning, match="no fake quantization.*quantize first"):
        api.run(api.load(EXAMPLE), "convert-to-int")


def test_command_line_prints_one_line_warnings_and_succeeds(tmp_path: Path):
    result = subprocess.run(
        ["graph-opt", str(EXAMPLE), "-p", "fold-bn,convert-to-int", "-o", str(tmp_path / "out.mlir")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0
    assert result.stderr.splitlines() == [
        "graph-opt: warning: convert-to-int: no fake quantization in the module, "
        "nothing to convert: run calibrate and quantize first"
    ]


@pytest.mark.parametrize(
    "pass_name, message",
    [
        ("prune", "prune: found nothing to remove"),
        ("fold-constants", "fold-constants: found nothing to fold"),
        ("fuse-ops", "fuse-ops: found nothing to fuse"),
        ("refine-shapes", "refine-shapes: found no type to refine"),
        ("convert-layout", "convert-layout: found no op outside the NCHW layout"),
        ("quantize", "quantize: found no conv, matmul or gemm layer"),
        ("cse", "cse: found no common subexpression"),
        ("dce", "dce: found no dead code"),
        ("canonicalize", "canonicalize: found nothing to canonicalize"),
    ],
)
def test_a_pass_with_nothing_to_do_says_so(pass_name: str, message: str):
    module = api.parse(
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %y = nn.tanh %x : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  func.return %y : tensor<4xf32>\n}"
    )
    with pytest.warns(GraphOptWarning, match=message):
        api.run(module, pass_name)


def test_statistics_say_what_each_pass_did():
    stats = []
    api.run(api.load(EXAMPLE), "fold-bn,fuse-ops", statistics=stats)
    fold, fuse = stats
    assert fold.name == "fold-bn" and fold.counters == {
        "decomposed batch norms (x * s + t) folded": 0,
        "nn.batch_norm folded": 1,
        "nn.batch_norm left": 0,
    }
    assert fold.changed_ops()["nn.batch_norm"] == (1, 0)
    assert sum(fold.rewrites.values()) >= 1
    assert fuse.changed_ops()["nn.fused_conv"] == (0, 1)
    assert "'fold-bn'" in fold.table() and "nn.batch_norm folded" in fold.table()


def test_statistics_keep_and_still_say_warnings():
    stats = []
    with pytest.warns(GraphOptWarning, match="no fake quantization"):
        api.run(api.load(EXAMPLE), "convert-to-int", statistics=stats)
    assert "no fake quantization" in stats[0].warnings[0]


def test_command_line_prints_pass_statistics(tmp_path: Path):
    result = subprocess.run(
        ["graph-opt", str(EXAMPLE), "-p", "fold-bn,fuse-ops", "--pass-statistics",
         "-o", str(tmp_path / "out.mlir")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    header, fold, fuse = re.split("'fold-bn'|'fuse-ops'", result.stderr)
    assert header.splitlines()[1].strip() == "... Pass statistics report ..."
    assert re.search(r"\(S\) +1 nn.batch_norm folded +- Batch norms folded into", fold)
    assert "(S) 1 -> 0 'nn.batch_norm' ops" in fold
    assert re.search(r"\(S\) +1 relu fused into nn.fused_conv +- Activations", fuse)
    assert "(S) 0 -> 1 'nn.fused_conv' ops" in fuse
    assert "nn.fused_conv" in (tmp_path / "out.mlir").read_text()


def test_partition_pattern_that_matches_nothing_warns():
    module = api.parse(
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %y = nn.tanh %x : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  func.return %y : tensor<4xf32>\n}"
    )
    name = "conv-bias-relu"
    with pytest.warns(GraphOptWarning, match=f"'{name}' matched nothing"):
        api.run(module, f"partition-pattern{{pattern={name}}}")


TWICE_AND_DEAD = """
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = nn.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = nn.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %dead = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %c1 = arith.constant 1 : i32
  %c2 = arith.addi %c1, %c1 : i32
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}
"""


@pytest.mark.parametrize(
    "pass_name, gone",
    [("cse", ["nn.tanh", "nn.relu"]), ("dce", ["nn.relu", "arith.addi"]), ("canonicalize", ["arith.addi"])],
)  # fmt: skip
def test_xdsl_passes_that_change_the_graph_are_silent(pass_name, gone, recwarn):
    module = api.parse(TWICE_AND_DEAD)
    before = [op.name for op in module.walk()]
    api.run(module, pass_name)
    after = [op.name for op in module.walk()]
    assert not [w for w in recwarn if issubclass(w.category, GraphOptWarning)]
    for name in gone:
        assert after.count(name) < before.count(name)


@pytest.mark.parametrize(
    "pass_name, message",
    [
        ("fold-bn", "fold-bn: found no batch norm to fold"),
        ("fuse-ops", "fuse-ops: found nothing to fuse"),
        ("fold-constants", "fold-constants: found nothing to fold"),
    ],
)
def test_erasing_dead_ops_on_the_way_is_not_the_pass_s_work(pass_name, message):
    """An exporter's unused initializer goes on the walk; the pass still found nothing."""
    module = api.parse(
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %unused = nn.constant dense<1.0> : tensor<4xf32>\n"
        "  %y = nn.tanh %x : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  func.return %y : tensor<4xf32>\n}"
    )
    with pytest.warns(GraphOptWarning, match=message):
        api.run(module, pass_name)
    assert "nn.constant" not in str(module)
