"""Tensor and shape ops: ONNX import (per opset form), our interpreter against
onnxruntime, and export back to ONNX run again in onnxruntime."""

from __future__ import annotations

from functools import partial

import numpy as np
import onnx
import pytest
from one_node_models import (
    RNG,
    assert_outputs_close,
    check_against_ort,
    model_of,
    op_names,
    rand,
    run_ort,
)
from onnx import TensorProto, numpy_helper
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, DictionaryAttr, IntegerAttr, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser

from graph_opt.dialects.nn import NN
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import OPSET_ATTR, import_model
from graph_opt.interpreter import run_function

assert_same = partial(assert_outputs_close, tol=1e-6)
check_round_trip = partial(check_against_ort, tol=1e-6)


X = rand(2, 3, 4)

CASES = {
    "transpose": (
        lambda: model_of("Transpose", {"x": X}, 11, perm=[2, 0, 1]),
        "nn.transpose",
    ),
    "transpose_default": (lambda: model_of("Transpose", {"x": X}, 11), "nn.transpose"),
    "flatten_0": (lambda: model_of("Flatten", {"x": X}, 11, axis=0), "nn.flatten"),
    "flatten_neg": (lambda: model_of("Flatten", {"x": X}, 11, axis=-1), "nn.flatten"),
    "squeeze_11": (
        lambda: model_of("Squeeze", {"x": rand(2, 1, 3, 1)}, 11, axes=[1, -1]),
        "nn.squeeze",
    ),
    "squeeze_18": (
        lambda: model_of(
            "Squeeze", {"x": rand(2, 1, 3, 1)}, 18, {"axes": np.array([-1], np.int64)}
        ),
        "nn.squeeze",
    ),
    "squeeze_all_18": (
        lambda: model_of("Squeeze", {"x": rand(1, 3, 1)}, 18),
        "nn.squeeze",
    ),
    "unsqueeze_11": (
        lambda: model_of("Unsqueeze", {"x": X}, 11, axes=[0, -1]),
        "nn.unsqueeze",
    ),
    "unsqueeze_18": (
        lambda: model_of(
            "Unsqueeze", {"x": X}, 18, {"axes": np.array([4, 1], np.int64)}
        ),
        "nn.unsqueeze",
    ),
    "concat": (
        lambda: model_of(
            "Concat",
            {"a": rand(2, 3, 1), "b": rand(2, 3, 4), "c": rand(2, 3, 2)},
            11,
            axis=-1,
        ),
        "nn.concat",
    ),
    "split_11": (
        lambda: model_of("Split", {"x": X}, 11, outputs=2, axis=2, split=[1, 3]),
        "nn.split",
    ),
    "split_even_11": (
        lambda: model_of("Split", {"x": X}, 11, outputs=3, axis=1),
        "nn.split",
    ),
    "split_input_13": (
        lambda: model_of(
            "Split", {"x": X}, 13, {"s": np.array([1, 1], np.int64)}, outputs=2
        ),
        "nn.split",
    ),
    "split_num_outputs_18": (
        lambda: model_of("Split", {"x": rand(5, 2)}, 18, outputs=3, num_outputs=3),
        "nn.split",
    ),
    "slice_9": (
        lambda: model_of(
            "Slice", {"x": X}, 9, starts=[1, -3], ends=[100, -1], axes=[2, 1]
        ),
        "nn.slice",
    ),
    "slice_defaults_11": (
        lambda: model_of(
            "Slice",
            {"x": X},
            11,
            {"s": np.array([-1, 1], np.int64), "e": np.array([9, 3], np.int64)},
        ),
        "nn.slice",
    ),
    "slice_negative_steps_18": (
        lambda: model_of(
            "Slice",
            {"x": X},
            18,
            {
                "s": np.array([100, -1], np.int32),
                "e": np.array([-100, 0], np.int32),
                "a": np.array([-1, 1], np.int32),
                "t": np.array([-2, -1], np.int32),
            },
        ),
        "nn.slice",
    ),
    "slice_runtime_bounds_18": (
        lambda: model_of(
            "Slice",
            {"x": X, "s": np.array([0, 1], np.int64), "e": np.array([2, -1], np.int64)},
            18,
            {"a": np.array([0, 2], np.int64)},
        ),
        "nn.slice",
    ),
    "gather": (
        lambda: model_of(
            "Gather",
            {"x": X},
            11,
            {"i": np.array([[-1, 0], [2, -3]], np.int64)},
            axis=1,
        ),
        "nn.gather",
    ),
    "pad_10": (
        lambda: model_of("Pad", {"x": X}, 10, pads=[0, 1, 2, 1, 0, -1], value=1.5),
        "nn.pad",
    ),
    "pad_constant_11": (
        lambda: model_of(
            "Pad",
            {"x": X},
            11,
            {
                "p": np.array([1, 0, 2, 0, 3, 1], np.int64),
                "v": np.array(-2.0, np.float32),
            },
        ),
        "nn.pad",
    ),
    "pad_reflect_11": (
        lambda: model_of(
            "Pad",
            {"x": X},
            11,
            {"p": np.array([0, 2, 1, 0, 1, 3], np.int64)},
            mode="reflect",
        ),
        "nn.pad",
    ),
    "pad_edge_axes_18": (
        lambda: model_of(
            "Pad",
            {"x": X},
            18,
            {"p": np.array([2, 1, 0, 3], np.int64), "a": np.array([-1, 0], np.int64)},
            inputs=["x", "p", "", "a"],
            mode="edge",
        ),
        "nn.pad",
    ),
    "cast_f16": (
        lambda: model_of("Cast", {"x": X}, 11, to=TensorProto.FLOAT16),
        "nn.cast",
    ),
    "cast_i32": (
        lambda: model_of("Cast", {"x": X * 10}, 18, to=TensorProto.INT32),
        "nn.cast",
    ),
    "cast_from_i64": (
        lambda: model_of(
            "Cast", {"x": RNG.integers(-9, 9, (3, 2))}, 18, to=TensorProto.DOUBLE
        ),
        "nn.cast",
    ),
    "shape": (lambda: model_of("Shape", {"x": X}, 11), "nn.shape"),
    "shape_start_end_18": (
        lambda: model_of("Shape", {"x": X}, 18, start=-2, end=10),
        "nn.shape",
    ),
    "size": (lambda: model_of("Size", {"x": X}, 11), "nn.size"),
    "constant_of_shape": (
        lambda: model_of(
            "ConstantOfShape",
            {},
            11,
            {"s": np.array([2, 3], np.int64)},
            value=numpy_helper.from_array(np.array([7], np.int32)),
        ),
        "nn.constant_of_shape",
    ),
    "constant_of_shape_runtime": (
        lambda: model_of("ConstantOfShape", {"s": np.array([3, 1, 2], np.int64)}, 18),
        "nn.constant_of_shape",
    ),
    "dropout_11": (lambda: model_of("Dropout", {"x": X}, 11, ratio=0.3), "nn.dropout"),
    "dropout_13": (
        lambda: model_of(
            "Dropout",
            {"x": X},
            13,
            {"r": np.array(0.2, np.float32), "t": np.array(False)},
        ),
        "nn.dropout",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_import_run_export(case):
    make, op_name = CASES[case]
    check_round_trip(*make(), op_name)


def with_opset(module: ModuleOp, opset: int) -> ModuleOp:
    module.attributes[OPSET_ATTR] = DictionaryAttr({"": IntegerAttr(opset, 64)})
    return module


@pytest.mark.parametrize("opset", [9, 11, 13, 18])
@pytest.mark.parametrize(
    "case",
    ["squeeze_18", "unsqueeze_11", "split_input_13", "slice_defaults_11",
     "pad_constant_11", "dropout_13", "shape_start_end_18"],
)  # fmt: skip
def test_export_in_the_form_of_the_opset(case, opset):
    model, feeds = CASES[case][0]()
    module = with_opset(import_model(model), opset)
    exported = export_module(module)
    onnx.checker.check_model(exported)
    assert exported.opset_import[0].version == opset
    assert_same(run_ort(exported, feeds), run_function(module, feeds))


@pytest.mark.parametrize("opset, inputs", [(11, 1), (13, 2)])
def test_squeeze_axes_attribute_before_13_input_after(opset, inputs):
    model, _ = CASES["squeeze_11"][0]()
    exported = export_module(with_opset(import_model(model), opset))
    (node,) = [n for n in exported.graph.node if n.op_type == "Squeeze"]
    assert len(node.input) == inputs
    assert [a.name for a in node.attribute] == (["axes"] if inputs == 1 else [])


def test_runtime_squeeze_axes_stay_opaque_and_round_trip():
    x, axes = rand(2, 1, 3, 1), np.array([1, 3], np.int64)
    model, feeds = model_of("Squeeze", {"x": x, "axes": axes}, 18)
    module = import_model(model)
    assert "nn.opaque" in op_names(module) and "nn.squeeze" not in op_names(module)
    expected = run_ort(model, feeds)
    assert_same(run_function(module, feeds), expected)
    assert_same(run_ort(export_module(module), feeds), expected)


DECLINED = {
    "dropout_training": lambda: model_of(
        "Dropout", {"x": X}, 13, {"r": np.array(0.2, np.float32), "t": np.array(True)}
    ),
    "dropout_mask_output": lambda: model_of("Dropout", {"x": X}, 11, outputs=2),
    "pad_runtime_pads": lambda: model_of(
        "Pad", {"x": X, "p": np.array([1, 0, 0, 0, 0, 1], np.int64)}, 11
    ),
    "split_runtime_sizes": lambda: model_of(
        "Split", {"x": X, "s": np.array([2, 2], np.int64)}, 13, outputs=2, axis=2
    ),
    "unsqueeze_runtime_axes": lambda: model_of(
        "Unsqueeze", {"x": X, "a": np.array([0], np.int64)}, 13
    ),
}


@pytest.mark.parametrize("case", DECLINED)
def test_declined_nodes_stay_opaque(case):
    model, _ = DECLINED[case]()
    names = op_names(import_model(model))
    assert "nn.opaque" in names
    assert not any(
        n.startswith(("nn.dropout", "nn.pad", "nn.split", "nn.unsqueeze"))
        for n in names
    )


def parse(text: str) -> ModuleOp:
    ctx = Context()
    for dialect in (Builtin, Func, NN):
        ctx.load_dialect(dialect)
    return Parser(ctx, text).parse_module()


def test_rank_has_no_onnx_import_and_exports_as_shape_then_size():
    module = parse(
        """
        func.func @main(%x: tensor<2x3x4xf32>) -> tensor<i64> {
          %0 = nn.rank %x : (tensor<2x3x4xf32>) -> tensor<i64>
          func.return %0 : tensor<i64>
        }
        """
    )
    exported = export_module(module)
    assert [n.op_type for n in exported.graph.node][:2] == ["Shape", "Size"]
    (ours,) = run_function(module, [X])
    assert ours.dtype == np.int64 and ours.shape == () and ours == X.ndim
    assert_same(run_ort(exported, {exported.graph.input[0].name: X}), [ours])


def test_slice_with_negative_steps_has_no_opset_9_form():
    model, _ = CASES["slice_negative_steps_18"][0]()
    module = with_opset(import_model(model), 9)
    with pytest.raises(FrontendError, match="unit steps"):
        export_module(module)


def test_pad_axes_that_do_not_match_pads_are_a_clear_error():
    model, _ = model_of(
        "Pad",
        {"x": X},
        18,
        {"p": np.array([1, 1, 1], np.int64), "a": np.array([0], np.int64)},
        inputs=["x", "p", "", "a"],
    )
    with pytest.raises(FrontendError, match="Pad axes"):
        import_model(model, validate=False)
    with pytest.raises(FrontendError, match="Pads has incorrect number of values"):
        import_model(model)  # validation refuses it first, as onnxruntime does
