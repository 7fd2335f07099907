"""Hostile ONNX inputs: external data that leaves the model's directory (symlinks,
`..`, absolute locations, a symlinked folder, /proc/self/environ), that is a
FIFO or a device, that claims bytes past its file's end, or that has no base
directory (a model on stdin, an opaque op of a .mlir file); graphs whose
tensors grow with their inputs; a Loop that never ends."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.external_data_helper import set_external_data

from graph_opt.testing.fuzz.hostile_inputs import (
    ACCEPT,
    BOUNDED,
    EITHER,
    REFUSE,
    Hostile,
    Workspace,
    device,
    fifo,
    link,
)

OPTIMIZE = ("-p", "optimize", "-t", "onnx")
WEIGHTS = "weights.bin"


def _model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "hostile", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _linear(rng) -> tuple[onnx.ModelProto, bytes]:
    """y = x @ w, w [n, n] stored outside the model file; and w's bytes."""
    n = int(rng.integers(4, 17))
    weight = rng.standard_normal((n, n)).astype(np.float32)
    model = _model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])],
        [numpy_helper.from_array(weight, "w")],
    )
    return model, weight.tobytes()


def _external(space: Workspace, rng, location=WEIGHTS, extra_length=0) -> bytes:
    """model.onnx whose weight is `location`; the weight's bytes, also in the
    decoys (a reader resolving `location` against the working directory or
    reaching outside finds data that loads)."""
    model, data = _linear(rng)
    tensor = model.graph.initializer[0]
    set_external_data(tensor, location, offset=0, length=len(data) + extra_length)
    tensor.ClearField("raw_data")
    (space.model / "model.onnx").write_bytes(model.SerializeToString())
    space.decoy(WEIGHTS, data)
    return data


def _command(space: Workspace, name: str, expect: str) -> Hostile:
    return Hostile(f"onnx:{name}", expect, "graph-opt",
                   (str(space.model / "model.onnx"), *OPTIMIZE))  # fmt: skip


def valid_external_data(space: Workspace, rng) -> Hostile:
    (space.model / WEIGHTS).write_bytes(_external(space, rng))
    return _command(space, "valid_external_data", ACCEPT)


def symlink_out(space: Workspace, rng) -> Hostile:
    _external(space, rng)
    link(space.model / WEIGHTS, f"../outside/{WEIGHTS}")
    return _command(space, "symlink_out", REFUSE)


def symlink_to_environ(space: Workspace, rng) -> Hostile:
    _external(space, rng)
    link(space.model / WEIGHTS, "/proc/self/environ")
    return _command(space, "symlink_to_environ", REFUSE)


def symlink_in(space: Workspace, rng) -> Hostile:
    data = _external(space, rng)
    (space.model / "blobs").mkdir()
    (space.model / "blobs" / "w.bin").write_bytes(data)
    link(space.model / WEIGHTS, "blobs/w.bin")
    return _command(space, "symlink_in", EITHER)


def dotdot_location(space: Workspace, rng) -> Hostile:
    _external(space, rng, location=f"../outside/{WEIGHTS}")
    return _command(space, "dotdot_location", REFUSE)


def absolute_location(space: Workspace, rng) -> Hostile:
    _external(space, rng, location=str(space.outside / WEIGHTS))
    return _command(space, "absolute_location", REFUSE)


def symlinked_folder(space: Workspace, rng) -> Hostile:
    _external(space, rng, location=f"blobs/{WEIGHTS}")
    link(space.model / "blobs", "../outside")
    return _command(space, "symlinked_folder", REFUSE)


def fifo_data(space: Workspace, rng) -> Hostile:
    _external(space, rng)
    fifo(space.model / WEIGHTS)
    return _command(space, "fifo_data", REFUSE)


def device_data(space: Workspace, rng) -> Hostile:
    _external(space, rng)
    kind = device(space.model / WEIGHTS, rng)
    return _command(space, f"device_data_{kind}", REFUSE)


def data_past_end(space: Workspace, rng) -> Hostile:
    data = _external(space, rng, extra_length=int(rng.choice([4, 1 << 20, 1 << 40])))
    (space.model / WEIGHTS).write_bytes(data)
    return _command(space, "data_past_end", REFUSE)


def stdin_external_data(space: Workspace, rng) -> Hostile:
    """A model on stdin has no directory: its external data must not be looked
    for in the working directory (which holds a file of the right name)."""
    _external(space, rng)
    stdin = space.model / "model.onnx"
    return Hostile("onnx:stdin_external_data", REFUSE, "graph-opt",
                   ("-f", "onnx", *OPTIMIZE), stdin=stdin)  # fmt: skip


def opaque_external_data(space: Workspace, rng) -> Hostile:
    """An opaque Constant of a .mlir file whose tensor is external data, which
    only the working directory holds: evaluating it must not read that."""
    model, data = _linear(rng)
    n = int(np.sqrt(len(data) // 4))
    tensor = numpy_helper.from_array(np.zeros((n, n), np.float32), "w")
    set_external_data(tensor, WEIGHTS, offset=0, length=len(data))
    tensor.ClearField("raw_data")
    holder = onnx.NodeProto(attribute=[helper.make_attribute("value", tensor)])
    escaped = "".join(f"\\{b:02X}" for b in holder.SerializeToString())
    f32 = f"tensor<{n}x{n}xf32>"
    text = (
        f"func.func @main(%x: tensor<1x{n}xf32>) -> tensor<1x{n}xf32> {{\n"
        f'  %w = "nn.opaque"() <{{op_type = "Constant", serialized_attrs = "{escaped}"}}>'
        f" : () -> {f32}\n"
        f"  %y = nn.matmul %x, %w : (tensor<1x{n}xf32>, {f32}) -> tensor<1x{n}xf32>\n"
        f"  func.return %y : tensor<1x{n}xf32>\n}}\n"
    )
    (space.model / "model.mlir").write_text(text)
    space.decoy(WEIGHTS, data)
    np.save(space.model / "x.npy", np.ones((1, n), np.float32))
    return Hostile("mlir:opaque_external_data", REFUSE, "graph-opt-run",
                   (str(space.model / "model.mlir"), "-i", str(space.model / "x.npy")),
                   output_suffix=".npz")  # fmt: skip


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
    model = _model(
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
    model = _model(
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
    model = _model(
        [helper.make_node("Loop", ["", "true", "x"], ["y"], body=body)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
        [numpy_helper.from_array(np.array(True), "true"),
         numpy_helper.from_array(np.array([float(rng.integers(1, 9))], np.float32), "one")],
    )  # fmt: skip
    return _run(space, "endless_loop", REFUSE, model, np.zeros(1, np.float32))


ONNX_HOSTILE = (
    valid_external_data, symlink_out, symlink_to_environ, symlink_in,
    dotdot_location, absolute_location, symlinked_folder, fifo_data, device_data,
    data_past_end, stdin_external_data, opaque_external_data, outer_product_bomb,
    shape_input_bomb, opaque_shape_bomb, splat_bomb, endless_loop,
)  # fmt: skip
