"""fold-constants' max-size holds for every op kind and position, before any
tensor is allocated, and the interpreter refuses tensors above its limit."""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt.api import run
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.interpreter.limits import TensorTooLarge, tensor_limit
from graph_opt.remarks import GraphOptWarning

HUGE = 1 << 28
"""Elements of a 1 GiB float32 tensor: made by a model of about 150 bytes."""


def ints(name: str, values) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, np.int64), name)


def sized_model(kind: str, n: int, as_output: bool) -> onnx.ModelProto:
    """`big` of n elements computed from small constants, added to x or returned."""
    one = numpy_helper.from_array(np.array([1.0], np.float32))
    nodes = {
        "ConstantOfShape": [
            helper.make_node("ConstantOfShape", ["s"], ["big"], value=one)
        ],
        "Range": [
            helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
            helper.make_node("Cast", ["r"], ["big"], to=TensorProto.FLOAT),
        ],
        "Expand": [helper.make_node("Expand", ["v", "s"], ["big"])],
        "Tile": [helper.make_node("Tile", ["v", "s"], ["big"])],
    }[kind]
    inits = [
        ints("s", [n]),
        ints("start", 0),
        ints("limit", n),
        ints("delta", 1),
        numpy_helper.from_array(np.array([1.5], np.float32), "v"),
    ]
    if as_output:
        nodes.append(helper.make_node("Relu", ["x"], ["y"]))
        outputs = ["y", "big"]
    else:
        nodes.append(helper.make_node("Add", ["x", "big"], ["y"]))
        outputs = ["y"]
    x_shape = [1] if as_output else [n]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


KINDS = ["ConstantOfShape", "Range", "Expand", "Tile"]


@pytest.mark.parametrize("as_output", [False, True], ids=["operand", "output"])
@pytest.mark.parametrize("kind", KINDS)
def test_huge_results_are_refused_before_allocation(kind, as_output):
    module = import_model(sized_model(kind, HUGE, as_output))
    tracemalloc.start()
    try:
        with pytest.warns(GraphOptWarning, match=r"left unfolded for size.*\(now 10\)"):
            run(module, "fold-constants{max-size=10}")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20
    assert max(constant.to_array().size for constant in module.walk()
               if isinstance(constant, ConstantOp)) <= 1  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
def test_max_size_counts_a_splat_whole(kind):
    module = import_model(sized_model(kind, 1000, as_output=True))
    with pytest.warns(GraphOptWarning, match="1,000 result elements"):
        run(module, "fold-constants{max-size=10}")
    exported = export_module(module)
    assert exported.ByteSize() < 1000
    run(module, "fold-constants{max-size=1000}")
    assert kind not in {n.op_type for n in export_module(module).graph.node}


def test_optimize_reports_what_it_left_for_size():
    module = import_model(sized_model("ConstantOfShape", 1 << 20, as_output=False))
    with pytest.warns(GraphOptWarning, match="nn.constant_of_shape big: 1,048,576"):
        run(module, "optimize")


def test_negative_small_folds_still_happen_without_warning():
    module = import_model(sized_model("Expand", 8, as_output=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphOptWarning)
        run(module, "fold-constants")
    x = np.ones(1, np.float32)
    np.testing.assert_array_equal(run_function(module, [x])[1], np.full(8, 1.5))


def test_interpreter_refuses_a_tensor_above_its_limit():
    module = import_model(sized_model("ConstantOfShape", HUGE, as_output=True))
    with pytest.raises(
        TensorTooLarge, match="1,024.0 MiB, above the limit of 256.0 MiB"
    ):
        run_function(module, [np.ones(1, np.float32)])
    with tensor_limit(max_bytes=1 << 10):
        small = import_model(sized_model("Range", 1000, as_output=True))
        with pytest.raises(TensorTooLarge, match="nn.range"):
            run_function(small, [np.ones(1, np.float32)])


def run_tool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, check=False
    )


def test_max_tensor_size_option_of_both_tools(tmp_path):
    model = tmp_path / "big.onnx"
    onnx.save(sized_model("ConstantOfShape", 1 << 20, as_output=True), model)
    x = tmp_path / "x.npy"
    np.save(x, np.ones(1, np.float32))
    out = tmp_path / "out.npz"
    runner = ["graph_opt.tools.run_main", str(model), "-i", str(x), "-o", str(out)]
    refused = run_tool(*runner, "--max-tensor-size", "1M")
    assert refused.returncode == 1 and not out.exists()
    assert refused.stderr.count("\n") == 1
    assert "above the limit of 1.0 MiB (--max-tensor-size)" in refused.stderr
    assert run_tool(*runner, "--max-tensor-size=5M").returncode == 0
    assert np.load(out)["big"].size == 1 << 20
    folded = tmp_path / "folded.onnx"
    fold = ["graph_opt.tools.graph_opt_main", str(model), "-p",
            "fold-constants{max-size=2000000}", "-o", str(folded)]  # fmt: skip
    small = run_tool(*fold, "--max-tensor-size", "1M")
    assert "left unfolded for size" in small.stderr and "1.0 MiB" in small.stderr
    assert os.path.getsize(folded) < 1000
    assert run_tool(*fold, "--max-tensor-size", "8M").returncode == 0
    assert os.path.getsize(folded) > 4 << 20
    bad = run_tool(*fold, "--max-tensor-size", "12X")
    assert bad.returncode == 2 and "expected a size such as" in bad.stderr
