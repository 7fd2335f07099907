"""Bombs and endless loops: a few hundred bytes that make gigabytes (a splat or
a short TensorFlow value list of a huge shape, an opaque op that declares a
small result, tensors that grow with a run-time input), and an ONNX Loop and
a TensorFlow While whose condition stays true."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from graph_opt.testing.fuzz.hostile_inputs import (
    BOUNDED,
    OPTIMIZE,
    REFUSE,
    Hostile,
    Workspace,
)
from graph_opt.testing.fuzz.hostile_onnx import onnx_model


def _run(
    space: Workspace, name: str, expect: str, model, inputs: np.ndarray
) -> Hostile:
    (space.model / "model.onnx").write_bytes(model.SerializeToString())
    np.save(space.model / "input.npy", inputs)
    args = (str(space.model / "model.onnx"), "-i", str(space.model / "input.npy"))
    return Hostile(f"onnx:{name}", expect, "graph-opt-run", args, ".npz")


def _huge_side(rng) -> int:
    """A square of this side in f32 is 1 to 2.2 GiB."""
    return int(rng.integers(16384, 24000))


def outer_product_bomb(space: Workspace, rng) -> Hostile:
    """x of dynamic length n (a small input) gives an n x n product."""
    nodes = [
        helper.make_node("Unsqueeze", ["x", "axis1"], ["column"]),
        helper.make_node("Unsqueeze", ["x", "axis0"], ["row"]),
        helper.make_node("Mul", ["column", "row"], ["square"]),
        helper.make_node("ReduceSum", ["square"], ["y"], keepdims=0),
    ]
    model = onnx_model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
        [numpy_helper.from_array(np.array([1], np.int64), "axis1"),
         numpy_helper.from_array(np.array([0], np.int64), "axis0")],
    )  # fmt: skip
    x = np.ones(_huge_side(rng), np.float32)
    return _run(space, "outer_product_bomb", BOUNDED, model, x)


def shape_input_bomb(space: Workspace, rng) -> Hostile:
    """ConstantOfShape of a shape given at run time."""
    nodes = [
        helper.make_node("ConstantOfShape", ["shape"], ["big"]),
        helper.make_node("ReduceSum", ["big"], ["y"], keepdims=0),
    ]
    model = onnx_model(
        nodes,
        [helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
    )
    side = _huge_side(rng)
    return _run(space, "shape_input_bomb", BOUNDED, model, np.array([side, side]))


def opaque_shape_bomb(space: Workspace, rng) -> Hostile:
    """An opaque ConstantOfShape declared tensor<1xf32> that makes a huge tensor
    when fold-constants evaluates it."""
    side = _huge_side(rng)
    text = (
        "func.func @main(%x: tensor<1xf32>) -> tensor<1xf32> {\n"
        f"  %s = nn.constant dense<[{side}, {side}]> : tensor<2xi64>\n"
        '  %c = "nn.opaque"(%s) <{op_type = "ConstantOfShape"}>'
        " : (tensor<2xi64>) -> tensor<1xf32>\n"
        "  %y = nn.add %x, %c : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>\n"
        "  func.return %y : tensor<1xf32>\n}\n"
    )
    (space.model / "model.mlir").write_text(text)
    return Hostile("mlir:opaque_shape_bomb", BOUNDED, "graph-opt",
                   (str(space.model / "model.mlir"), *OPTIMIZE))  # fmt: skip


def splat_bomb(space: Workspace, rng) -> Hostile:
    """A .mlir splat of a 1 to 2 GiB shape, exported to ONNX (every element)."""
    side = _huge_side(rng)
    f32 = f"tensor<{side}x{side}xf32>"
    text = (
        f"func.func @main() -> {f32} {{\n"
        f"  %c = nn.constant dense<1.500000e+00> : {f32}\n"
        f"  func.return %c : {f32}\n}}\n"
    )
    (space.model / "model.mlir").write_text(text)
    return Hostile("mlir:splat_bomb", BOUNDED, "graph-opt",
                   (str(space.model / "model.mlir"), *OPTIMIZE))  # fmt: skip


def endless_loop(space: Workspace, rng) -> Hostile:
    """A Loop with no trip count whose condition stays true."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["v_in", "one"], ["v_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [1])],
    )  # fmt: skip
    model = onnx_model(
        [helper.make_node("Loop", ["", "true", "x"], ["y"], body=body)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
        [numpy_helper.from_array(np.array(True), "true"),
         numpy_helper.from_array(np.array([float(rng.integers(1, 9))], np.float32), "one")],
    )  # fmt: skip
    return _run(space, "endless_loop", REFUSE, model, np.zeros(1, np.float32))


def _tensor_text(dims: list[int], values: list[float]) -> str:
    shape = " ".join(f"dim {{ size: {d} }}" for d in dims)
    vals = " ".join(f"float_val: {v}" for v in values)
    return f"tensor {{ dtype: DT_FLOAT tensor_shape {{ {shape} }} {vals} }}"


def constant_bomb(space: Workspace, rng) -> Hostile:
    """A few hundred bytes of text: a Const of one value (or a short list, its
    last value repeated) of a 1 to 2 GiB shape."""
    side = int(rng.integers(16384, 24000))
    values = [1.5] if rng.random() < 0.5 else [1.0, 2.0, 3.0]
    text = (
        'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }'
        f' attr {{ key: "value" value {{ {_tensor_text([side, side], values)} }} }} }}\n'
        'node { name: "y" op: "Identity" input: "c"'
        ' attr { key: "T" value { type: DT_FLOAT } } }\n'
    )
    (space.model / "graph.pbtxt").write_text(text)
    name = "splat" if len(values) == 1 else "value_list"
    return Hostile(f"pbtxt:{name}_bomb", BOUNDED, "graph-opt",
                   (str(space.model / "graph.pbtxt"), *OPTIMIZE))  # fmt: skip


_ENDLESS_WHILE = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 1 } } } } }
node { name: "loop" op: "While" input: "x"
  attr { key: "T" value { list { type: DT_FLOAT } } }
  attr { key: "cond" value { func { name: "always" } } }
  attr { key: "body" value { func { name: "step" } } } }
node { name: "y" op: "Identity" input: "loop" attr { key: "T" value { type: DT_FLOAT } } }
library {
  function { signature { name: "always" input_arg { name: "a" type: DT_FLOAT }
      output_arg { name: "c" type: DT_BOOL } }
    node_def { name: "t" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
      attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: true } } } }
    ret { key: "c" value: "t:output:0" } }
  function { signature { name: "step" input_arg { name: "a" type: DT_FLOAT }
      output_arg { name: "b" type: DT_FLOAT } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: STEP } } } }
    node_def { name: "next" op: "AddV2" input: "a" input: "one:output:0"
      attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "b" value: "next:z:0" } }
}
"""


def endless_while(space: Workspace, rng) -> Hostile:
    """A functional While whose condition is a constant true."""
    step = float(rng.integers(1, 9))
    (space.model / "graph.pbtxt").write_text(_ENDLESS_WHILE.replace("STEP", str(step)))
    np.save(space.model / "x.npy", np.zeros(1, np.float32))
    args = (str(space.model / "graph.pbtxt"), "-i", str(space.model / "x.npy"))
    return Hostile("pbtxt:endless_while", REFUSE, "graph-opt-run", args, ".npz")


BOMBS = (
    outer_product_bomb, shape_input_bomb, opaque_shape_bomb, splat_bomb,
    constant_bomb, endless_loop, endless_while,
)  # fmt: skip
