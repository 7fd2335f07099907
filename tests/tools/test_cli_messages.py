"""What a new user meets (issue 28, item 15): option type errors that name the
pass and the option, short one-line errors, an empty .mlir, ONNX on stdin, one
line for an unknown target, warnings attributed to their pass, whole summaries
in --list-passes and fold-bn counting the decomposed batch norms it folds."""

import os
import subprocess
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.passes import ModulePass

from graph_opt import api
from graph_opt.driver.pipeline import PipelineError
from graph_opt.remarks import GraphOptWarning, shortened, warn

EXAMPLE = Path(__file__).parents[2] / "examples" / "conv_bn_relu.onnx"


def graph_opt(*args, cwd, **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GRAPH_OPT_TRACEBACK"}
    return subprocess.run(
        ["graph-opt", *map(str, args)], cwd=cwd, env=env, capture_output=True, **kwargs
    )


def onnx_model(nodes, initializers, shape, path: Path) -> Path:
    """A float model of `nodes` from input x to output y, both of `shape`."""
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        [numpy_helper.from_array(v, n) for n, v in initializers.items()],
    )
    onnx.save(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path
    )
    return path


def conv_chain(layers: int, path: Path) -> Path:
    """`layers` 1x1 convs, each followed by a relu."""
    nodes, weights, previous = [], {}, "x"
    for i in range(layers):
        weights[f"w{i}"] = np.full((2, 2, 1, 1), 0.5, np.float32)
        output = "y" if i == layers - 1 else f"r{i}"
        nodes += [
            helper.make_node("Conv", [previous, f"w{i}"], [f"c{i}"]),
            helper.make_node("Relu", [f"c{i}"], [output]),
        ]
        previous = output
    return onnx_model(nodes, weights, [1, 2, 4, 4], path)


def test_an_option_of_the_wrong_type_names_pass_option_and_type(tmp_path):
    result = graph_opt(
        EXAMPLE, "-p", "fold-bn,fold-constants{max-size=abc}", cwd=tmp_path
    )
    assert result.returncode == 1
    message, pipeline, caret = result.stderr.decode().splitlines()
    assert message == (
        "graph-opt: error: pass 'fold-constants' option 'max-size' takes an "
        "integer, not 'abc'"
    )
    assert pipeline[caret.index("^") :] == "abc}"


def test_the_api_raises_pipeline_error_for_an_option_of_the_wrong_type():
    with pytest.raises(PipelineError, match="option 'explain' takes true or false"):
        api.pipeline("fold-bn{explain=maybe}")


def test_a_long_list_in_an_error_shows_the_first_items_and_a_count(tmp_path):
    conv_chain(70, tmp_path / "convs.onnx")
    result = graph_opt("convs.onnx", "-p", "quantize", cwd=tmp_path)
    assert result.returncode == 1
    error = result.stderr.decode().splitlines()[-1]
    assert len(error) <= 300, error
    assert "no calibrated range for nn.relu r0, nn.relu r1," in error
    assert "... (64 more), nn.relu y: run calibrate before quantize" in error


def test_shortened_cuts_text_without_a_list_at_a_word():
    text = shortened("word " * 100, limit=50)
    assert len(text) <= 50 and text.endswith("word ...")


@pytest.mark.parametrize("text", ["", "\n  \n", "// only a comment\n"])
def test_an_empty_mlir_file_is_an_empty_module(tmp_path, text):
    (tmp_path / "empty.mlir").write_text(text)
    result = graph_opt("empty.mlir", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().split() == ["builtin.module", "{", "}"]
    assert api.load(tmp_path / "empty.mlir").ops.first is None


def test_binary_onnx_on_stdin_without_frontend(tmp_path):
    with open(EXAMPLE, "rb") as stdin:
        result = graph_opt("-p", "fold-bn", cwd=tmp_path, stdin=stdin)
    assert result.returncode == 0, result.stderr
    assert "nn.conv" in result.stdout.decode()


def test_an_unknown_target_is_one_line(tmp_path):
    result = graph_opt(EXAMPLE, "-t", "tosa", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == b""
    (line,) = result.stderr.decode().splitlines()
    assert line.startswith("graph-opt: error: argument -t/--target: invalid choice")
    assert "-p lower-to-tosa -t mlir" in line


def test_a_pass_warning_points_at_the_pass():
    module = api.load(EXAMPLE)
    api.run(module, "fold-bn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api.run(module, "fold-bn")
    (said,) = [w for w in caught if issubclass(w.category, GraphOptWarning)]
    assert said.filename.endswith(
        os.path.join("graph_opt", "passes", "fold_bn", "fold_bn.py")
    )


@dataclass(frozen=True)
class SilentPass(ModulePass):
    """A pass that warns without naming itself."""

    name = "test-unnamed-warning"

    def apply(self, ctx, op) -> None:
        warn("nothing done")


def test_a_pass_warning_is_prefixed_with_the_pass_name():
    with pytest.warns(GraphOptWarning) as caught:
        api.run(api.load(EXAMPLE), [SilentPass()])
    assert str(caught[0].message) == "test-unnamed-warning: nothing done"
    assert caught[0].filename == __file__


def test_list_passes_shows_whole_summaries(tmp_path):
    result = graph_opt("--list-passes", cwd=tmp_path)
    text = result.stdout.decode()
    summaries = [
        line
        for line in text[: text.index("\npatterns")].splitlines()
        if not line.startswith(" ")
    ]
    assert len(summaries) > 10
    cut = [line for line in summaries if not line.endswith(".")]
    assert cut == []


def test_fold_bn_statistics_count_decomposed_batch_norms(tmp_path):
    """conv -> mul(per-channel) -> add(per-channel): a batch norm as exporters
    decompose it, folded by FoldDecomposedBatchNorm."""
    rng = np.random.default_rng(0)
    path = onnx_model(
        [
            helper.make_node("Conv", ["x", "w"], ["c"]),
            helper.make_node("Mul", ["c", "s"], ["m"]),
            helper.make_node("Add", ["m", "t"], ["y"]),
        ],
        {
            "w": rng.standard_normal((2, 2, 1, 1)).astype(np.float32),
            "s": rng.uniform(1, 2, (1, 2, 1, 1)).astype(np.float32),
            "t": rng.standard_normal((1, 2, 1, 1)).astype(np.float32),
        },
        [1, 2, 4, 4],
        tmp_path / "decomposed.onnx",
    )
    module = api.load(path)
    statistics = []
    api.run(module, "fold-bn", statistics=statistics)
    assert "nn.mul" not in api.to_mlir(module)
    assert statistics[0].counters["decomposed batch norms (x * s + t) folded"] == 1
    assert "(S) 1 decomposed batch norms (x * s + t) folded - Batch norms written" in (
        statistics[0].table()
    )
