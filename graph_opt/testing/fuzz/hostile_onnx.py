"""Hostile ONNX inputs: external data that leaves the model's directory (symlinks,
`..`, absolute locations, a symlinked folder, /proc/self/environ), that is a
FIFO or a device, that claims bytes past its file's end, or that has no base
directory (a model on stdin, an opaque op of a .mlir file)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.external_data_helper import set_external_data

from graph_opt.testing.fuzz.hostile_inputs import (
    ACCEPT,
    EITHER,
    OPTIMIZE,
    REFUSE,
    Hostile,
    Workspace,
    device,
    fifo,
    link,
)

WEIGHTS = "weights.bin"


def onnx_model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "hostile", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _linear(rng) -> tuple[onnx.ModelProto, bytes]:
    """y = x @ w, w [n, n] stored outside the model file; and w's bytes."""
    n = int(rng.integers(4, 17))
    weight = rng.standard_normal((n, n)).astype(np.float32)
    model = onnx_model(
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


ONNX_HOSTILE = (
    valid_external_data, symlink_out, symlink_to_environ, symlink_in,
    dotdot_location, absolute_location, symlinked_folder, fifo_data, device_data,
    data_past_end, stdin_external_data, opaque_external_data,
)  # fmt: skip
