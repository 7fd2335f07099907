"""MaxPoolGrad, MaxPoolGradV2, AvgPoolGrad and AvgPool3DGrad against
TensorFlow's own CPU kernels (make_pool_grad_fixtures.py), bit for bit: ties
in max-pool windows go to the first maximum; convert-layout and the GraphDef
export keep them. MaxPool3DGrad, whose kernel differs, is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from graph_opt import api
from graph_opt.dialects.nn.pool_grad import AvgPoolGradOp, MaxPoolGradOp, PoolGradOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.export.exporter import graph_def_bytes
from graph_opt.formats.tensorflow.importer import graph_def_from_bytes
from graph_opt.interpreter import run_function

FIXTURE = Path(__file__).parent / "fixtures" / "pool_grad"


def load():
    data = np.load(FIXTURE.with_suffix(".npz"))
    outputs = [str(name) for name in data["outputs"]]
    module = import_graph_def(
        load_graph_def(str(FIXTURE.with_suffix(".pbtxt"))), outputs=outputs
    )
    inputs = {k.removeprefix("in:"): data[k] for k in data.files if k.startswith("in:")}
    return module, inputs, [data[f"out:{i}"] for i in range(len(outputs))]


def assert_bit_exact(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_array_equal(a, e)


def test_imports_as_pool_gradients():
    module, _, _ = load()
    ops = [type(op) for op in module.walk() if isinstance(op, PoolGradOp)]
    assert ops.count(MaxPoolGradOp) == 5 and ops.count(AvgPoolGradOp) == 4


def test_explicit_padding_imports_as_pads():
    """MaxPoolGrad's explicit_paddings [0, 0, 1, 2, 1, 0, 0, 0] (NHWC pairs):
    pads top 1, left 1, bottom 2, right 0; TensorFlow's outputs are in the
    fixture."""
    module, _, _ = load()
    pads = [
        list(op.pads.get_values())
        for op in module.walk()
        if isinstance(op, MaxPoolGradOp) and op.pads is not None
    ]
    assert pads == [[1, 1, 2, 0]]


def test_fixture_windows_hold_ties():
    """The stride-1 3x3 windows of the pooled input: many hold their maximum
    twice or more, so a wrong tie rule would show."""
    _, inputs, _ = load()
    windows = sliding_window_view(inputs["x"], (3, 3), axis=(1, 2))
    ties = (windows == windows.max(axis=(-2, -1), keepdims=True)).sum(axis=(-2, -1))
    assert (ties > 1).mean() > 0.3


def test_interpreter_matches_tensorflow_bit_for_bit():
    module, inputs, expected = load()
    assert_bit_exact(run_function(module, inputs), expected)


def test_convert_layout_keeps_the_gradients():
    module, inputs, expected = load()
    api.run(module, "convert-layout")
    layouts = {op.layout for op in module.walk() if isinstance(op, PoolGradOp)}
    assert layouts == {"NCHW"}
    assert_bit_exact(run_function(module, inputs), expected)


def test_graph_def_export_round_trip():
    module, inputs, expected = load()
    graph = graph_def_from_bytes(graph_def_bytes(module, text=False))
    assert {"MaxPoolGrad", "AvgPoolGrad", "MaxPool"} <= {node.op for node in graph.node}
    assert_bit_exact(run_function(import_graph_def(graph), inputs), expected)


POOLS = {"MaxPool", "MaxPool3D", "MaxPoolGrad", "AvgPoolGrad", "AvgPool3DGrad"}
PER_AXIS = ("orig_input_shape", "ksize", "strides")


def _first(rank: int) -> list[int]:
    """The permutation from channels-last to channels-first."""
    return [0, rank - 1, *range(1, rank - 1)]


def channels_first(graph):
    """The fixture graph with its pools and pool gradients channels-first
    (NCHW, NCDHW): data_format, per-axis attributes and constants and the
    placeholders' shapes permuted. TensorFlow runs these on GPU only."""
    for node in graph.node:
        if node.op == "Placeholder":
            dims = node.attr["shape"].shape.dim
            sizes = [d.size for d in dims]
            for d, a in zip(dims, _first(len(sizes))):
                d.size = sizes[a]
        elif node.op == "Const" and node.name.endswith(PER_AXIS):
            tensor = node.attr["value"].tensor
            values = np.frombuffer(tensor.tensor_content, "<i4")
            tensor.tensor_content = values[_first(len(values))].tobytes()
        elif node.op in POOLS or node.op == "MaxPoolGradV2":
            rank = 5 if "3D" in node.op else 4
            node.attr["data_format"].s = b"NCDHW" if rank == 5 else b"NCHW"
            for name in ("ksize", "strides", "explicit_paddings"):
                if name in node.attr:  # MaxPoolGradV2 takes ksize, strides as inputs
                    values = list(node.attr[name].list.i)
                    step = 2 if name == "explicit_paddings" else 1
                    moved = [values[step * a : step * a + step] for a in _first(rank)]
                    node.attr[name].list.i[:] = sum(moved, []) if values else []
    return graph


def test_channels_first_gives_the_channels_last_gradients_transposed():
    """data_format NCHW (NCDHW), which TensorFlow's CPU kernels refuse: every
    gradient of the fixture, imported channels-first, is TensorFlow's NHWC
    result transposed, bit for bit."""
    data = np.load(FIXTURE.with_suffix(".npz"))
    outputs = [str(name) for name in data["outputs"]]
    graph = channels_first(load_graph_def(str(FIXTURE.with_suffix(".pbtxt"))))
    module = import_graph_def(graph, outputs=outputs)
    layouts = {op.layout for op in module.walk() if isinstance(op, PoolGradOp)}
    assert layouts == {"NCHW"}
    inputs = {
        k.removeprefix("in:"): np.transpose(data[k], _first(data[k].ndim))
        for k in data.files
        if k.startswith("in:")
    }
    expected = [data[f"out:{i}"] for i in range(len(outputs))]
    expected = [np.transpose(e, _first(e.ndim)) for e in expected]
    assert_bit_exact(run_function(module, inputs), expected)


def test_a_window_of_equal_values_routes_to_its_first_position():
    """One 2x2 window of four equal values: the whole gradient goes to the
    top-left position, none to the others (nor to padding, which is lower)."""
    graph = graph_def_from_bytes(
        b"""
        node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
          attr { key: "shape" value { shape { dim { size: 1 } dim { size: 2 } dim { size: 2 } dim { size: 1 } } } } }
        node { name: "dy" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
          attr { key: "shape" value { shape { dim { size: 1 } dim { size: 1 } dim { size: 1 } dim { size: 1 } } } } }
        node { name: "grad" op: "MaxPoolGrad" input: "x" input: "x" input: "dy"
          attr { key: "T" value { type: DT_FLOAT } }
          attr { key: "ksize" value { list { i: 1 i: 3 i: 3 i: 1 } } }
          attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } }
          attr { key: "padding" value { s: "SAME" } } }
        """,
        text=True,
    )
    module = import_graph_def(graph, outputs=["grad"])
    x = np.full((1, 2, 2, 1), -5.0, np.float32)
    (grad,) = run_function(
        module, {"x": x, "dy": np.full((1, 1, 1, 1), 3.0, np.float32)}
    )
    np.testing.assert_array_equal(grad.reshape(2, 2), [[3.0, 0.0], [0.0, 0.0]])


def test_nan_wins_only_as_the_first_value_of_its_window():
    """TensorFlow's running maximum: a NaN first in its window keeps the
    gradient; a later NaN never takes it; -inf ties go to the first. The
    expected gradient is what TensorFlow 2.21's MaxPoolGrad gave."""
    x = np.array(
        [
            [np.nan, 5, 7, 1],
            [1, np.nan, 7, 2],
            [-np.inf, -np.inf, 1, np.nan],
            [2, 2, 7, 2],
        ],
        np.float32,
    )
    graph = graph_def_from_bytes(
        b"""
        node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
          attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } dim { size: 4 } dim { size: 1 } } } } }
        node { name: "dy" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
          attr { key: "shape" value { shape { dim { size: 1 } dim { size: 2 } dim { size: 2 } dim { size: 1 } } } } }
        node { name: "grad" op: "MaxPoolGrad" input: "x" input: "x" input: "dy"
          attr { key: "T" value { type: DT_FLOAT } }
          attr { key: "ksize" value { list { i: 1 i: 2 i: 2 i: 1 } } }
          attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } }
          attr { key: "padding" value { s: "VALID" } } }
        """,
        text=True,
    )
    module = import_graph_def(graph, outputs=["grad"])
    dy = np.arange(1, 5, dtype=np.float32).reshape(1, 2, 2, 1)
    (grad,) = run_function(module, {"x": x.reshape(1, 4, 4, 1), "dy": dy})
    expected = [[1, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0], [3, 0, 4, 0]]
    np.testing.assert_array_equal(grad.reshape(4, 4), expected)


def test_max_pool_3d_grad_is_refused_by_name():
    graph = graph_def_from_bytes(
        b"""
        node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
          attr { key: "shape" value { shape { dim { size: 1 } dim { size: 2 } dim { size: 2 } dim { size: 2 } dim { size: 1 } } } } }
        node { name: "grad" op: "MaxPool3DGrad" input: "x" input: "x" input: "x"
          attr { key: "T" value { type: DT_FLOAT } } attr { key: "TInput" value { type: DT_FLOAT } }
          attr { key: "ksize" value { list { i: 1 i: 1 i: 1 i: 1 i: 1 } } }
          attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 i: 1 } } }
          attr { key: "padding" value { s: "VALID" } } }
        """,
        text=True,
    )
    with pytest.raises(
        FrontendError,
        match=r"unsupported TensorFlow ops: MaxPool3DGrad \(1: its kernel gives "
        r"every value within 1e-5",
    ):
        import_graph_def(graph, outputs=["grad"])
