"""The GraphDef exporter and ONNX's semantics on special values: a wrapping
cast to a narrow integer goes through int32 (exact in TensorFlow), and
ONNX's Range and ArgMax/ArgMin, which TensorFlow computes differently, are
named in one warning each (docs/guarantees.md, "Special values")."""

import warnings

import numpy as np
import pytest

from graph_opt.api import parse
from graph_opt.formats.tensorflow.export.exporter import export_graph_def
from graph_opt.interpreter.runner import run_function
from graph_opt.remarks import GraphOptWarning
from graph_opt.testing.special_values import special_array, special_floats


def cast_module(source: str, target: str, props: str, n: int):
    x, y = f"tensor<{n}x{source}>", f"tensor<{n}x{target}>"
    return parse(f"""
func.func @main(%x: {x}) -> {y} {{
  %0 = nn.cast %x {{to = {target}{props}}} : ({x}) -> {y}
  func.return %0 : {y}
}}""")


def casts(graph_def) -> list[tuple[int, int]]:
    return [
        (n.attr["SrcT"].type, n.attr["DstT"].type)
        for n in graph_def.node
        if n.op == "Cast"
    ]


def test_wrapping_cast_exports_through_int32():
    graph_def = export_graph_def(cast_module("f32", "i8", "", 4))
    assert casts(graph_def) == [(1, 3), (3, 6)]  # float -> int32 -> int8


def test_negative_clamping_cast_exports_as_one_cast():
    graph_def = export_graph_def(cast_module("f32", "i8", ", clamp_narrow", 4))
    assert casts(graph_def) == [(1, 6)]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("target", ["i8", "ui8", "i16"])
def test_wrapping_cast_runs_in_tensorflow_as_interpreted(dtype, target):
    """TensorFlow (dev time) runs the export to the interpreter's ONNX result."""
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    x = np.concatenate([special_floats(dtype), special_array(rng, dtype, [40])])
    source = {np.float16: "f16", np.float32: "f32", np.float64: "f64"}[dtype]
    module = cast_module(source, target, "", x.size)
    want = run_function(module, [x])[0]
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(
            tf.compat.v1.GraphDef.FromString(
                export_graph_def(module).SerializeToString()
            ),
            name="",
        )
    with tf.compat.v1.Session(graph=graph) as session:
        (got,) = session.run(["output_0:0"], {"input_0:0": x})
    np.testing.assert_array_equal(got, want)


def exported_warnings(text: str) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        export_graph_def(parse(text))
    return [str(w.message) for w in caught if w.category is GraphOptWarning]


def range_text(dtype: str, props: str) -> str:
    s = f"tensor<{dtype}>"
    return f"""
func.func @main(%s: {s}, %l: {s}, %d: {s}) -> tensor<?x{dtype}> {{
  %0 = nn.range %s, %l, %d{props} : ({s}, {s}, {s}) -> tensor<?x{dtype}>
  func.return %0 : tensor<?x{dtype}>
}}"""


def arg_text(dtype: str, props: str) -> str:
    x = f"tensor<3x4x{dtype}>"
    return f"""
func.func @main(%x: {x}) -> tensor<3xi64> {{
  %0 = nn.argmin %x {{axis = 1 : i64, keepdims = 0 : i64{props}}} : ({x}) -> tensor<3xi64>
  func.return %0 : tensor<3xi64>
}}"""


def test_accumulating_float_range_is_named():
    (message,) = exported_warnings(range_text("f32", " {accumulate}"))
    assert "nn.range {accumulate}" in message and "start + i * delta" in message


def test_scan_from_first_float_argmin_is_named():
    (message,) = exported_warnings(arg_text("f32", ", scan_from_first"))
    assert "nn.argmin {scan_from_first}" in message and "ArgMin" in message


@pytest.mark.parametrize(
    "text",
    [
        range_text("f32", ""),
        range_text("i32", " {accumulate}"),
        arg_text("f32", ""),
        arg_text("i32", ", scan_from_first"),
    ],
    ids=["tf-range", "integer-range", "tf-argmin", "integer-argmin"],
)
def test_negative_same_semantics_exports_without_warning(text):
    assert exported_warnings(text) == []


def test_bfloat16_is_a_float_at_graph_def_export():
    """ml_dtypes' bfloat16 (numpy kind "V"): ONNX's wrapping cast still goes
    through int32, ONNX's scan and running sum are still named."""
    graph_def = export_graph_def(cast_module("bf16", "i8", "", 4))
    assert casts(graph_def) == [(14, 3), (3, 6)]  # bfloat16 -> int32 -> int8
    (message,) = exported_warnings(arg_text("bf16", ", scan_from_first"))
    assert "nn.argmin {scan_from_first}" in message
    (message,) = exported_warnings(range_text("bf16", " {accumulate}"))
    assert "nn.range {accumulate}" in message
