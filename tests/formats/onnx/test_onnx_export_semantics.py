"""The ONNX exporter keeps the semantics an nn op's property asks for
(TensorFlow's: cast without wrapping, range as start + i * delta, argmax
ignoring NaN): onnxruntime running the export gives graph-opt's interpreter's
results bit for bit on special values (docs/guarantees.md, "Special values")."""

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, i64

from graph_opt.api import parse
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import OPSET_ATTR
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter.runner import run_function
from graph_opt.testing.special_values import special_array, special_floats

RNG = np.random.default_rng(7)
FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def onnxruntime_run(module, inputs: list[np.ndarray], opset: int = 18) -> np.ndarray:
    module.attributes[OPSET_ATTR] = DictionaryAttr({"": IntegerAttr(opset, i64)})
    model = export_module(module)
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    feeds = {i.name: v for i, v in zip(session.get_inputs(), inputs)}
    return session.run(None, feeds)[0]


def assert_same_as_interpreter(module, inputs, opset: int = 18) -> np.ndarray:
    want = run_function(module, inputs)[0]
    got = onnxruntime_run(module, inputs, opset)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    return got


def cast_module(source: str, target: str, clamp: bool, n: int):
    props = f"to = {target}" + (", clamp_narrow" if clamp else "")
    return parse(f"""
func.func @main(%x: tensor<{n}x{source}>) -> tensor<{n}x{target}> {{
  %0 = nn.cast %x {{{props}}} : (tensor<{n}x{source}>) -> tensor<{n}x{target}>
  func.return %0 : tensor<{n}x{target}>
}}""")


def cast_inputs(dtype) -> np.ndarray:
    values = np.concatenate(
        [
            special_floats(dtype),
            np.array([127.9, 128.0, 255.5, 256.0, -128.9, -129.0, 32767.0, 40000.0]),
            special_array(RNG, dtype, [64]),
        ]
    )
    with np.errstate(over="ignore"):
        return values.astype(dtype)


@pytest.mark.parametrize("source", sorted(FLOATS))
@pytest.mark.parametrize("target", ["i8", "ui8", "i16"])
def test_clamped_cast_exports_as_tensorflow_casts(source, target):
    x = cast_inputs(FLOATS[source])
    got = assert_same_as_interpreter(cast_module(source, target, True, x.size), [x])
    nan_or_inf = ~np.isfinite(x)
    assert (got[nan_or_inf] == np.iinfo(got.dtype).min).all()
    assert got[list(x).index(300.5)] == np.iinfo(got.dtype).max or target == "i16"


def test_wrapping_cast_still_exports_as_onnx_cast():
    x = np.array([300.5, np.nan, -1.5], np.float32)
    got = assert_same_as_interpreter(cast_module("f32", "i8", False, 3), [x])
    assert got[0] == 44


def range_module(dtype: str, accumulate: bool):
    scalar = f"tensor<{dtype}>"
    props = " {accumulate}" if accumulate else ""
    return parse(f"""
func.func @main(%s: {scalar}, %l: {scalar}, %d: {scalar}) -> tensor<?x{dtype}> {{
  %0 = nn.range %s, %l, %d{props} : ({scalar}, {scalar}, {scalar}) -> tensor<?x{dtype}>
  func.return %0 : tensor<?x{dtype}>
}}""")


RANGES = [
    (0.1, 20.0, 0.3),
    (-3.7, 100.0, 0.7),
    (1e8, 1e8 + 3000.0, 7.1),
    (5.0, -10.0, -0.45),
    (0.0, 1.0, 3.0),
    (2.0, 1.0, 1.0),
    (-0.0, 0.5, 0.25),
]


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize(("start", "limit", "delta"), RANGES)
def test_product_range_exports_as_tensorflow_range(dtype, start, limit, delta):
    args = [np.array(v, FLOATS[dtype]) for v in (start, limit, delta)]
    assert_same_as_interpreter(range_module(dtype, False), args)


def test_product_range_differs_from_onnx_range():
    """The running sum drifts from start + i * delta: the export is not Range."""
    args = [np.array(v, np.float32) for v in (0.1, 20.0, 0.3)]
    product = onnxruntime_run(range_module("f32", False), args)
    running = assert_same_as_interpreter(range_module("f32", True), args)
    assert not np.array_equal(product, running)


def arg_module(op: str, dtype: str, props: str, shape=(8, 5), axis=1, keepdims=1):
    out = [1 if k == axis else d for k, d in enumerate(shape) if k != axis or keepdims]
    x, y = (
        f"tensor<{'x'.join(map(str, s))}x{t}>"
        for s, t in ((shape, dtype), (out, "i64"))
    )
    attrs = f"axis = {axis} : i64, keepdims = {keepdims} : i64{props}"
    return parse(f"""
func.func @main(%x: {x}) -> {y} {{
  %0 = nn.{op} %x {{{attrs}}} : ({x}) -> {y}
  func.return %0 : {y}
}}""")


def arg_inputs(dtype) -> np.ndarray:
    nan, inf = np.nan, np.inf
    highest = np.finfo(dtype).max
    lowest = -highest
    rows = [
        [nan, 1.0, 2.0, -inf, inf],  # a leading NaN
        [nan, nan, nan, nan, nan],  # every value NaN
        [-inf, nan, -inf, inf, nan],
        [inf, -inf, nan, -inf, inf],
        [-inf, -inf, -inf, -inf, -inf],
        [3.0, nan, 3.0, -1.0, 3.0],
        [-inf, lowest, nan, lowest, -inf],  # the scan's start is not beaten
        [inf, highest, nan, -inf, highest],
    ]
    return np.array(rows, dtype)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("last", [0, 1])
def test_nan_ignoring_arg_exports_as_tensorflow_scan(op, dtype, last):
    props = f", select_last_index = {last} : i64"
    x = arg_inputs(FLOATS[dtype])
    got = assert_same_as_interpreter(arg_module(op, dtype, props), [x])
    assert got[0] != 0 and got[1] == 0  # the leading NaN does not win


@pytest.mark.parametrize("opset", [13, 18])
def test_nan_ignoring_arg_of_random_special_values(opset):
    x = special_array(RNG, np.float32, [6, 9])
    x[0, 0] = np.nan  # a leading NaN, which onnxruntime's ArgMax would pick
    module = arg_module("argmax", "f32", ", select_last_index = 1 : i64", (6, 9), 0, 0)
    assert_same_as_interpreter(module, [x], opset)


def test_scan_from_first_still_exports_as_onnx_argmax():
    x = arg_inputs(np.float32)
    got = assert_same_as_interpreter(
        arg_module("argmax", "f32", ", scan_from_first"), [x]
    )
    assert got[0] == 0


TF_FIXTURE = Path(__file__).parents[1] / "tensorflow" / "fixtures" / "special_ops.pbtxt"
TF_SEMANTICS = ("ArgMax", "ArgMin", "Range")
NARROW_CASTS = ("Cast_1", "Cast_2")
"""float32 to int8 and uint8 (Cast_5, to bool, differs by TensorFlow's
flushing of subnormals)."""


def test_tensorflow_fixture_exported_to_onnx_gives_tensorflow_outputs():
    """TensorFlow's Cast, ArgMax, ArgMin and Range (fixture written by
    TensorFlow 2.21), imported and exported to ONNX: onnxruntime gives
    TensorFlow's outputs bit for bit."""
    data = np.load(TF_FIXTURE.with_suffix(".npz"))
    names = [str(n) for n in data["outputs"]]
    chosen = [n for n in names if n.split("_")[0] in TF_SEMANTICS]
    chosen += NARROW_CASTS
    module = import_graph_def(load_graph_def(str(TF_FIXTURE)), outputs=chosen)
    model = export_module(module)
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    feeds = {i.name: data[f"in:{i.name}"] for i in session.get_inputs()}
    for name, got in zip(chosen, session.run(None, feeds)):
        want = data[f"out:{names.index(name)}"]
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), name)
    assert len(chosen) == 10


def test_product_range_of_constants_counts_at_export():
    module = parse("""
func.func @main() -> tensor<?xf32> {
  %s = nn.constant dense<-3.0> : tensor<f32>
  %l = nn.constant dense<4.0> : tensor<f32>
  %d = nn.constant dense<0.3> : tensor<f32>
  %0 = nn.range %s, %l, %d : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}""")
    op_types = [n.op_type for n in export_module(module).graph.node]
    assert "Div" not in op_types and "Range" in op_types
    got = assert_same_as_interpreter(module, [])
    assert got.size == 24
