"""graph-opt's kernels on special values, where they once differed from
onnxruntime and TensorFlow (both agreeing): the expected values are theirs.
Each runs through the interpreter and through fold-constants."""

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.passes.fold_constants import FoldConstantsPass
from graph_opt.passes.fold_constants.fold_constants import fold_constants
from graph_opt.testing.opaque_variants import one_node

NAN, INF = np.nan, np.inf


def interpreted_and_folded(op_type, inputs, attrs=None, outputs=1, constant=()):
    """The op's outputs from the interpreter and from fold-constants (every
    input an initializer); `constant` inputs are initializers in both."""
    model = one_node(op_type, inputs, attrs or {}, outputs)
    graph = model.graph
    for i in constant:
        graph.initializer.append(
            numpy_helper.from_array(inputs[i], graph.input[i].name)
        )
    fed = [x for i, x in enumerate(inputs) if i not in constant]
    kept = [v for i, v in enumerate(graph.input) if i not in constant]
    del graph.input[:]
    graph.input.extend(kept)
    interpreted = run_function(import_model(model), fed)
    for value, array in zip(kept, fed):
        graph.initializer.append(numpy_helper.from_array(array, value.name))
    del graph.input[:]
    module = import_model(model)
    fold_constants(module, FoldConstantsPass.max_size)
    returned = next(op for op in module.walk() if op.name == "func.return")
    assert all(isinstance(v.owner, ConstantOp) for v in returned.operands)
    folded = [v.owner.to_array() for v in returned.operands]
    return interpreted, folded


def assert_same(results, expected):
    """Equal values and types, NaN equal to NaN, zeros of the same sign."""
    for result in results:
        for got, want in zip(result, expected):
            want = np.asarray(want)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
            if got.dtype.kind == "f":
                zeros = want == 0
                assert (np.signbit(got[zeros]) == np.signbit(want[zeros])).all()


@pytest.mark.parametrize(
    "op_type, last, want",
    [
        ("ArgMax", 0, [2, 0, 0, 3]),
        ("ArgMin", 0, [0, 0, 0, 0]),
        ("ArgMax", 1, [2, 0, 0, 3]),
    ],
)
def test_onnx_arg_reductions_scan_from_the_first_element(op_type, last, want):
    """numpy's argmax picks the first NaN; onnxruntime's scan skips a later NaN
    and keeps a leading one (TensorFlow's differs: test_tf_special_values)."""
    rows = [[1, NAN, 3, 2], [NAN] * 4, [NAN, -INF, 5, NAN], [-1, NAN, -1, 7]]
    x = np.array(rows, np.float32)
    attrs = {"axis": 1, "keepdims": 0, "select_last_index": last}
    assert_same(interpreted_and_folded(op_type, [x], attrs), [np.array(want, np.int64)])


def test_top_k_puts_nan_first_when_largest():
    x = np.array([1, NAN, 3, -INF, NAN], np.float32)
    results = interpreted_and_folded("TopK", [x, np.array([3])], {}, 2, constant=(1,))
    assert_same(results, [np.array([NAN, NAN, 3], np.float32), np.array([1, 4, 2])])


def test_clip_ignores_a_nan_bound():
    x = np.array([NAN, 1, 5, -5], np.float32)
    bounds = [np.array(NAN, np.float32), np.array(2, np.float32)]
    results = interpreted_and_folded("Clip", [x, *bounds], constant=(1, 2))
    assert_same(results, [np.array([NAN, 1, 2, -5], np.float32)])


def test_clip_and_pad_keep_float64_values():
    """Bounds and fill values of float64 tensors were rounded to float32."""
    x = np.array([0.1, 0.3], np.float64)
    low, high = np.array(0.2, np.float64), np.array(0.25, np.float64)
    clip = interpreted_and_folded("Clip", [x, low, high], constant=(1, 2))
    assert_same(clip, [np.array([0.2, 0.25])])
    pads, fill = np.array([1, 0], np.int64), np.array(0.1, np.float64)
    pad = interpreted_and_folded("Pad", [x, pads, fill], constant=(1, 2))
    assert_same(pad, [np.array([0.1, 0.1, 0.3])])


def test_onnx_range_accumulates_as_onnxruntime():
    """ONNX's Range: start + delta + delta ... in the type (onnxruntime); the
    definition's start + i * delta gives 1.0000001e7 at i = 6."""
    args = [np.array(v, np.float32) for v in (1e7, 1e7 + 4, 0.1)]
    (interpreted,), (folded,) = interpreted_and_folded("Range", args)
    assert interpreted.shape == (40,)
    for result in (interpreted, folded):
        assert (result == np.float32(1e7)).all()


def test_relu_keeps_negative_zero():
    results = interpreted_and_folded("Relu", [np.array([NAN, -0.0, -1, 2], np.float32)])
    assert_same(results, [np.array([NAN, -0.0, 0, 2], np.float32)])


def test_quantize_linear_of_nan_and_infinities():
    """NaN is the type's minimum (onnxruntime), infinities saturate."""
    x = np.array([NAN, INF, -INF, 1e10, -1e10, 2.6], np.float32)
    scale, zero = np.array(1.0, np.float32), np.array(0, np.int8)
    results = interpreted_and_folded(
        "QuantizeLinear", [x, scale, zero], constant=(1, 2)
    )
    assert_same(results, [np.array([-128, 127, -128, 127, -128, 3], np.int8)])
    zero = np.array(3, np.uint8)
    results = interpreted_and_folded(
        "QuantizeLinear", [x, scale, zero], constant=(1, 2)
    )
    assert_same(results, [np.array([0, 255, 0, 255, 0, 6], np.uint8)])


def test_onnx_cast_to_int8_wraps_through_int32():
    """onnxruntime's Cast (a C conversion through int32): 300.5 -> 44, NaN -> 0."""
    x = np.array([NAN, INF, 300.5, -129.0, 65504.0], np.float32)
    results = interpreted_and_folded("Cast", [x], {"to": onnx.TensorProto.INT8})
    assert_same(results, [np.array([0, 0, 44, 127, -32], np.int8)])


@pytest.mark.parametrize(
    "dtype, want", [(np.float32, np.finfo(np.float32).min), (np.float16, -INF)]
)
def test_max_pool_of_minus_infinities(dtype, want):
    """onnxruntime's float32 kernel (and TensorFlow's) starts from the lowest
    finite value; its float16 one from -inf."""
    x = np.full((1, 1, 2, 2), -INF, dtype)
    results = interpreted_and_folded("MaxPool", [x], {"kernel_shape": [2, 2]})
    assert_same(results, [np.full((1, 1, 1, 1), want, dtype)])


def test_conv_transpose_multiplies_no_inserted_zero():
    """Strides insert zeros between inputs; a product with them turned an
    infinite weight into NaN at every output (onnxruntime adds only the
    products of real inputs: col2im)."""
    x = np.array([[[[1.0, 2.0]]]], np.float32)
    w = np.array([[[[INF, 1.0]]]], np.float32)
    results = interpreted_and_folded("ConvTranspose", [x, w], {"strides": [1, 2]})
    assert_same(results, [np.array([[[[INF, 1.0, INF, 2.0]]]], np.float32)])


def test_linear_resize_keeps_an_infinite_last_value():
    """Past the last input the value is taken as it is (onnxruntime); its
    weight-0 neighbour, the same value, made inf * 0 = NaN."""
    x = np.array([[[[4.0, INF]]]], np.float32)
    scales = np.array([1, 1, 2, 1.5], np.float32)
    model_inputs = [x, np.zeros(0, np.float32), scales]
    results = interpreted_and_folded(
        "Resize", model_inputs, {"mode": "linear"}, constant=(1, 2)
    )
    assert_same(results, [np.array([[[[NAN, INF, INF]] * 2]], np.float32)])
