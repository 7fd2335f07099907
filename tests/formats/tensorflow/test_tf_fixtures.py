"""Each fixture GraphDef: the interpreter matches numpy's TensorFlow semantics, and so
does onnxruntime on the exported model where every op has an ONNX form."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import tf_reference as tf
from make_fixtures import FIXTURES, weights

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter import run_function

W = weights()


def conv_bn_relu6(inputs):
    x = inputs["input"]
    pads = (tf.same_padding(7, 3, 2), tf.same_padding(7, 3, 2))
    conv = tf.conv2d_nhwc(x, W["conv_w"], strides=(2, 2), pads=pads)
    bn = tf.batch_norm_nhwc(
        conv, W["bn_scale"], W["bn_offset"], W["bn_mean"], W["bn_var"], 0.001
    )
    return [tf.relu6(bn)]


def depthwise(inputs):
    x = inputs["input"]
    dw = tf.depthwise_conv2d_nhwc(x, W["dw_w"], dilations=(2, 1), pads=((1, 2), (2, 0)))
    return [np.maximum(dw + W["dw_bias"], 0)]


def conv_nchw(inputs):
    x = np.moveaxis(inputs["input"], 1, -1)
    out = tf.conv2d_nhwc(x, W["nchw_w"], strides=(2, 2))
    return [np.moveaxis(out, -1, 1)]


def bias_add(inputs):
    x = inputs["input"]
    return [x + W["bias_last"], x + W["bias_channel"][:, None, None]]


def identity_control(inputs):
    return [inputs["b"] - inputs["a"]]


def elementwise(inputs):
    x, y, c = inputs["x"], inputs["y"], W["ew_c"]
    low = np.minimum(np.maximum((x + c) * y / c, x), y)
    rsqrt = 1 / np.sqrt((low - x) ** 2)
    square = y * y
    total = tf.sigmoid(square) + tf.leaky_relu(np.tanh(x), 0.3) - np.sqrt(square)
    return [total.reshape(3, 2), np.maximum(rsqrt, 0)]


def const_encodings(inputs):
    return [
        W["content"], W["content"], np.full((2, 3), 1.5, np.float32),
        np.array([1, 2, 3, 3, 3], np.int32), W["doubles"],
        np.array([[1, -2], [3, 4]], np.int32), np.array([5, -6, 1 << 40], np.int64),
        np.array([True, False, True]), W["halves"], W["bfloats"], np.zeros((2, 2), np.float32),
    ]  # fmt: skip


CASES = {
    "conv_bn_relu6.pb": (conv_bn_relu6, {"input": (1, 7, 7, 3)}, None),
    "depthwise.pb": (depthwise, {"input": (1, 6, 5, 2)}, None),
    "conv_nchw.pb": (conv_nchw, {"input": (1, 3, 5, 6)}, None),
    "bias_add.pbtxt": (bias_add, {"input": (2, 3, 4, 3)}, None),
    "identity_control.pbtxt": (identity_control, {"a": (2, 3), "b": (2, 3)}, None),
    "elementwise.pbtxt": (elementwise, {"x": (2, 3), "y": (2, 3)}, None),
    "const_encodings.pbtxt": (const_encodings, {}, None),
}


def random_inputs(shapes) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    return {
        name: rng.standard_normal(shape).astype(np.float32)
        for name, shape in shapes.items()
    }


def assert_all_close(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == np.shape(e) and a.dtype == np.asarray(e).dtype
        if a.dtype.kind == "f":
            tolerance = 1e-5 if a.dtype.itemsize >= 4 else 1e-2
            np.testing.assert_allclose(a.astype(np.float64), np.asarray(e, np.float64),
                                       rtol=tolerance, atol=tolerance)  # fmt: skip
        else:
            np.testing.assert_array_equal(a, e)


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    expected, shapes, export_error = CASES[request.param]
    module = import_graph_def(load_graph_def(str(FIXTURES / request.param)))
    inputs = random_inputs(shapes)
    return module, inputs, expected(inputs), export_error


def test_interpreter_matches_numpy(case):
    module, inputs, expected, _ = case
    module.verify()
    assert_all_close(run_function(module, inputs), expected)


def test_onnx_export_matches_numpy(case):
    module, inputs, expected, export_error = case
    if export_error is not None:
        with pytest.raises(FrontendError, match=export_error):
            export_module(module)
        return
    model = export_module(module)
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    # onnxruntime's Python API cannot hand out bfloat16 arrays: compare the others
    readable = [o.type != "tensor(bfloat16)" for o in session.get_outputs()]
    names = [o.name for o, ok in zip(session.get_outputs(), readable) if ok]
    assert_all_close(
        session.run(names, inputs), [e for e, ok in zip(expected, readable) if ok]
    )


def test_fixtures_are_what_the_generator_writes(tmp_path: Path, monkeypatch):
    import make_fixtures

    monkeypatch.setattr(make_fixtures, "FIXTURES", tmp_path / "fixtures")
    monkeypatch.setattr(make_fixtures, "FILECHECK_INPUTS", tmp_path / "inputs")
    make_fixtures.main()
    for name in make_fixtures.FIXTURE_GRAPHS:
        assert (tmp_path / "fixtures" / name).read_bytes() == (
            FIXTURES / name
        ).read_bytes(), name
    for name in make_fixtures.FILECHECK_GRAPHS:
        written = (tmp_path / "inputs" / name).read_bytes()
        assert written == (make_fixtures.FILECHECK_INPUTS / name).read_bytes(), name
