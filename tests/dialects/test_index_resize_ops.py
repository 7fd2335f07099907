"""Tile, Range, OneHot, TopK, GatherND, GatherElements and Resize: ONNX import to first-class nn ops, our
interpreter against onnxruntime, and the export run again in onnxruntime; the
forms nn.resize cannot express stay nn.opaque; fold-constants evaluates them."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from one_node_models import check_against_ort, model_of, op_names, rand
from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr

from graph_opt import api
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import OPSET_ATTR, import_model
from graph_opt.interpreter import run_function
from graph_opt.passes import get_all_passes

check = partial(check_against_ort, tol=1e-5)

IMAGE = rand(1, 2, 4, 5)
INDICES = np.array([[0, 2, -1, 3], [-3, 5, 1, -4]], np.int64)


def resize(mode, coordinates, nearest="round_prefer_floor", sizes=(1, 2, 7, 9)):
    return model_of(
        "Resize",
        {"x": IMAGE},
        18,
        {"sizes": np.array(sizes, np.int64)},
        inputs=["x", "", "", "sizes"],
        mode=mode,
        coordinate_transformation_mode=coordinates,
        nearest_mode=nearest,
    )


CASES = {
    "tile": (
        lambda: model_of(
            "Tile", {"x": rand(2, 3)}, 13, {"r": np.array([2, 3], np.int64)}
        ),
        "nn.tile",
    ),
    "expand": (
        lambda: model_of(
            "Expand", {"x": rand(3, 1)}, 13, {"s": np.array([2, 1, 4], np.int64)}
        ),
        "nn.expand",
    ),
    "range_int": (
        lambda: model_of(
            "Range",
            {},
            13,
            {
                "s": np.array(7, np.int32),
                "l": np.array(-3, np.int32),
                "d": np.array(-2, np.int32),
            },
        ),
        "nn.range",
    ),  # fmt: skip
    "range_float": (
        lambda: model_of(
            "Range",
            {"s": np.array(0.5, np.float32)},
            13,
            {"l": np.array(4.0, np.float32), "d": np.array(0.75, np.float32)},
        ),
        "nn.range",
    ),  # fmt: skip
    "one_hot_negative_wrap": (
        lambda: model_of(
            "OneHot",
            {"i": INDICES},
            13,
            {"depth": np.array(4, np.int64), "v": np.array([-1.0, 2.0], np.float32)},
        ),
        "nn.one_hot",
    ),  # fmt: skip
    "one_hot_axis0": (
        lambda: model_of(
            "OneHot",
            {"i": INDICES},
            13,
            {"depth": np.array(5, np.int64), "v": np.array([0, 7], np.int64)},
            axis=0,
        ),
        "nn.one_hot",
    ),  # fmt: skip
    "top_k": (
        lambda: model_of(
            "TopK", {"x": rand(3, 6)}, 13, {"k": np.array([4], np.int64)}, outputs=2
        ),
        "nn.top_k",
    ),  # fmt: skip
    "top_k_smallest_axis0": (
        lambda: model_of(
            "TopK",
            {"x": rand(5, 3)},
            13,
            {"k": np.array([2], np.int64)},
            outputs=2,
            axis=0,
            largest=0,
        ),
        "nn.top_k",
    ),  # fmt: skip
    "top_k_ties": (
        lambda: model_of(
            "TopK",
            {"x": np.array([[1, 3, 3, 1, 2]], np.float32)},
            13,
            {"k": np.array([5], np.int64)},
            outputs=2,
        ),
        "nn.top_k",
    ),  # fmt: skip
    "gather_nd": (
        lambda: model_of(
            "GatherND",
            {"x": rand(3, 4, 2)},
            13,
            {"i": np.array([[2, -1], [0, 1]], np.int64)},
        ),
        "nn.gather_nd",
    ),  # fmt: skip
    "gather_nd_batch_dims": (
        lambda: model_of(
            "GatherND",
            {"x": rand(2, 4, 3)},
            13,
            {"i": np.array([[[3]], [[1]]], np.int64)},
            batch_dims=1,
        ),
        "nn.gather_nd",
    ),  # fmt: skip
    "gather_elements": (
        lambda: model_of(
            "GatherElements",
            {"x": rand(3, 4)},
            13,
            {"i": np.array([[2, -1, 0, 1], [0, -3, 2, 2]], np.int64)},
        ),
        "nn.gather_elements",
    ),  # fmt: skip
    "gather_elements_axis1_smaller_indices": (
        lambda: model_of(
            "GatherElements",
            {"x": rand(3, 4, 2), "i": np.array([[[3], [-4]], [[0], [1]]], np.int32)},
            13,
            axis=1,
        ),
        "nn.gather_elements",
    ),  # fmt: skip
    "resize_scales": (
        lambda: model_of(
            "Resize",
            {"x": IMAGE},
            13,
            {
                "roi": np.zeros(0, np.float32),
                "scales": np.array([1, 1, 2, 0.6], np.float32),
            },
            mode="linear",
        ),
        "nn.resize",
    ),  # fmt: skip
}
for coordinates in ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"):
    CASES[f"resize_linear_{coordinates}"] = (
        partial(resize, "linear", coordinates),
        "nn.resize",
    )
    CASES[f"resize_linear_down_{coordinates}"] = (
        partial(resize, "linear", coordinates, sizes=(1, 2, 3, 2)), "nn.resize"
    )  # fmt: skip
    for nearest in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
        CASES[f"resize_nearest_{coordinates}_{nearest}"] = (
            partial(resize, "nearest", coordinates, nearest), "nn.resize"
        )  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_import_run_export(case):
    make, op_name = CASES[case]
    check(*make(), op_name)


@pytest.mark.parametrize(
    "attrs",
    [{"mode": "cubic"}, {"antialias": 1, "mode": "linear"}, {"axes": [2, 3]}],
    ids=["cubic", "antialias", "axes"],
)
def test_resize_forms_nn_resize_cannot_express_stay_opaque(attrs):
    sizes = np.array([7, 9] if "axes" in attrs else [1, 2, 7, 9], np.int64)
    model, _ = model_of(
        "Resize",
        {"x": IMAGE},
        18,
        {"sizes": sizes},
        inputs=["x", "", "", "sizes"],
        **attrs,
    )
    names = op_names(import_model(model, allow_opaque=True))
    assert "nn.opaque" in names and "nn.resize" not in names


def test_top_k_with_a_computed_k_stays_opaque():
    model, _ = model_of(
        "TopK", {"x": rand(3, 6), "k": np.array([2], np.int64)}, 13, outputs=2
    )
    assert "nn.top_k" not in op_names(import_model(model, allow_opaque=True))


def test_fold_constants_evaluates_the_ops_on_constants():
    module = api.parse("""
func.func @f() -> (tensor<4x3xf32>, tensor<4xf32>, tensor<3x4xf32>, tensor<2xf32>, tensor<2x4xf32>) {
  %x = nn.constant dense<[[1.0, 5.0, 3.0], [2.0, 0.0, 4.0]]> : tensor<2x3xf32>
  %r = nn.constant dense<[2, 1]> : tensor<2xi64>
  %t = nn.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  %s = nn.constant dense<0.5> : tensor<f32>
  %l = nn.constant dense<2.5> : tensor<f32>
  %a = nn.range %s, %l, %s : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  %i = nn.constant dense<[0, 2, -1]> : tensor<3xi32>
  %v = nn.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %h = nn.one_hot %i, %v {depth = 4 : i64} : (tensor<3xi32>, tensor<2xf32>) -> tensor<3x4xf32>
  %k, %ki = nn.top_k %x {k = 1 : i64, axis = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x1xi64>)
  %r0 = nn.constant dense<[2]> : tensor<1xi64>
  %kf = nn.reshape %k, %r0 : (tensor<2x1xf32>, tensor<1xi64>) -> tensor<2xf32>
  %z = nn.resize %x {sizes = array<i64: 2, 4>, mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  func.return %t, %a, %h, %kf, %z : tensor<4x3xf32>, tensor<4xf32>, tensor<3x4xf32>, tensor<2xf32>, tensor<2x4xf32>
}""")
    before = run_function(module, {})
    get_all_passes()["fold-constants"]()().apply(Context(), module)
    names = op_names(module)
    for op_name in ("nn.tile", "nn.range", "nn.one_hot", "nn.top_k", "nn.resize"):
        assert op_name not in names
    after = run_function(module, {})
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)
    tiled, counted, hot, best, resized = after
    np.testing.assert_array_equal(counted, [0.5, 1.0, 1.5, 2.0])
    np.testing.assert_array_equal(
        hot[2], [0, 0, 0, 0]
    )  # -1 without wrap_negative: all off
    np.testing.assert_array_equal(best, [5.0, 4.0])
    np.testing.assert_array_equal(resized[0], [1.0, 1.0, 5.0, 3.0])


def test_prune_removes_unused_ones():
    module = api.parse("""
func.func @f(%x: tensor<2x3xf32>, %i: tensor<3xi32>) -> tensor<2x3xf32> {
  %r = nn.constant dense<[2, 1]> : tensor<2xi64>
  %t = nn.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  %v = nn.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %h = nn.one_hot %i, %v {depth = 4 : i64} : (tensor<3xi32>, tensor<2xf32>) -> tensor<3x4xf32>
  %k, %ki = nn.top_k %x {k = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x1xi64>)
  %z = nn.resize %x {sizes = array<i64: 4, 6>} : (tensor<2x3xf32>) -> tensor<4x6xf32>
  func.return %x : tensor<2x3xf32>
}""")
    get_all_passes()["prune"]()().apply(Context(), module)
    assert op_names(module) == ["builtin.module", "func.func", "func.return"]


@pytest.mark.parametrize(
    "op_text, opset",
    [
        (
            "%0 = nn.resize %x {sizes = array<i64: 4, 6>} : (tensor<2x3xf32>) -> tensor<4x6xf32>",
            10,
        ),
        (
            "%0, %1 = nn.top_k %x {k = 1 : i64, largest = 0 : i64} : (tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x1xi64>)",
            10,
        ),
    ],
    ids=["resize", "top_k_smallest"],
)
def test_export_to_an_opset_without_the_form_is_refused(op_text, opset):
    module = api.parse(f"""
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {{
  {op_text}
  func.return %x : tensor<2x3xf32>
}}""")
    module.attributes[OPSET_ATTR] = DictionaryAttr({"": IntegerAttr(opset, 64)})
    with pytest.raises(
        FrontendError, match=f"needs opset 1[01], the model has {opset}"
    ):
        export_module(module)
