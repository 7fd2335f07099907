"""Malformed inputs from valid ones: byte flips and truncation of .onnx, .pb and
.mlir files, and mutations of the protos (swapped inputs, wrong types, removed
initializers, bad attributes, unsupported opsets, missing outputs, duplicate
definitions, integer division by zero, tensors too large to make, splats of
gigabytes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


@dataclass(frozen=True)
class Malformed:
    name: str
    """The mutation, e.g. `onnx:swap_inputs`."""
    suffix: str
    data: bytes
    refused_by_tensorflow: bool = False
    """A GraphDef that TensorFlow's importer refuses by construction."""


def flip_bytes(data: bytes, rng: np.random.Generator) -> bytes:
    out = bytearray(data)
    for _ in range(int(rng.integers(1, 6))):
        out[int(rng.integers(len(out)))] ^= 1 << int(rng.integers(8))
    return bytes(out)


def truncate(data: bytes, rng: np.random.Generator) -> bytes:
    return data[: int(rng.integers(1, len(data)))]


def mutate_bytes(
    kind: str, prefix: str, suffix: str, data: bytes, rng
) -> Malformed | None:
    """A byte-level mutation (`flip_bytes`, `truncate`), or None for another kind."""
    if kind not in ("flip_bytes", "truncate"):
        return None
    mutate = flip_bytes if kind == "flip_bytes" else truncate
    return Malformed(f"{prefix}:{kind}", suffix, mutate(data, rng))


def _node_with_inputs(model: onnx.ModelProto, rng, count: int = 2):
    nodes = [n for n in model.graph.node if len([i for i in n.input if i]) >= count]
    return nodes[int(rng.integers(len(nodes)))] if nodes else None


def swap_inputs(model, rng):
    node = _node_with_inputs(model, rng)
    if node is not None:
        node.input[0], node.input[1] = node.input[1], node.input[0]


def retype_initializer(model, rng):
    init = model.graph.initializer[int(rng.integers(len(model.graph.initializer)))]
    array = numpy_helper.to_array(init)
    if rng.random() < 0.5:
        text = helper.make_tensor(init.name, TensorProto.STRING, array.shape,
                                  [b"s"] * array.size)  # fmt: skip
        init.CopyFrom(text)
    else:
        target = rng.choice([np.int64, np.int32, np.float64, np.bool_])
        init.CopyFrom(numpy_helper.from_array(array.astype(target), init.name))


def remove_initializer(model, rng):
    del model.graph.initializer[int(rng.integers(len(model.graph.initializer)))]


def bad_attribute(model, rng):
    node = model.graph.node[int(rng.integers(len(model.graph.node)))]
    if rng.random() < 0.5 or not node.attribute:
        node.attribute.append(helper.make_attribute("kernel_shape", [3, 3]))
        node.attribute.append(helper.make_attribute("no_such_attribute", 1))
    else:
        attr = node.attribute[int(rng.integers(len(node.attribute)))]
        attr.CopyFrom(helper.make_attribute(attr.name, "text"))


def unsupported_opset(model, rng):
    model.opset_import[0].version = int(rng.choice([1, 5, 6, 99]))


def remove_outputs(model, rng):
    del model.graph.output[:]


def duplicate_definition(model, rng):
    if rng.random() < 0.5:
        model.graph.input.append(model.graph.input[0])
    else:
        node = model.graph.node[int(rng.integers(len(model.graph.node)))]
        node.output[0] = model.graph.input[0].name


def undefined_input(model, rng):
    node = model.graph.node[int(rng.integers(len(model.graph.node)))]
    if node.input:
        node.input[0] = "undefined_value"


def integer_division_by_zero(model, rng):
    a = numpy_helper.from_array(np.array([6, 7], np.int64), "fuzz_a")
    z = numpy_helper.from_array(np.array([2, 0], np.int64), "fuzz_z")
    model.graph.initializer.extend([a, z])
    op = str(rng.choice(["Div", "Mod"]))
    model.graph.node.append(helper.make_node(op, ["fuzz_a", "fuzz_z"], ["fuzz_q"]))
    model.graph.output.append(
        helper.make_tensor_value_info("fuzz_q", TensorProto.INT64, [2])
    )


def huge_tensor(model, rng):
    """A 100-byte recipe for a tensor of terabytes: folding must refuse it, not try."""
    shape = numpy_helper.from_array(
        np.array([1 << 20, 1 << 20], np.int64), "fuzz_shape"
    )
    model.graph.initializer.append(shape)
    fill = helper.make_tensor("value", TensorProto.FLOAT, [1], [1.0])
    model.graph.node.extend([
        helper.make_node("ConstantOfShape", ["fuzz_shape"], ["fuzz_big"], value=fill),
        helper.make_node("ReduceSum", ["fuzz_big"], ["fuzz_sum"], keepdims=0),
    ])  # fmt: skip
    model.graph.output.append(
        helper.make_tensor_value_info("fuzz_sum", TensorProto.FLOAT, [])
    )


ONNX_MUTATIONS: dict[str, Callable] = {
    f.__name__: f
    for f in (
        swap_inputs,
        retype_initializer,
        remove_initializer,
        bad_attribute,
        unsupported_opset,
        remove_outputs,
        duplicate_definition,
        undefined_input,
        integer_division_by_zero,
        huge_tensor,
    )
}


def mutate_onnx(model: onnx.ModelProto, rng: np.random.Generator) -> Malformed:
    kinds = [*ONNX_MUTATIONS, "flip_bytes", "truncate"]
    kind = kinds[int(rng.integers(len(kinds)))]
    if kind == "flip_bytes":
        return Malformed(
            f"onnx:{kind}", ".onnx", flip_bytes(model.SerializeToString(), rng)
        )
    if kind == "truncate":
        return Malformed(
            f"onnx:{kind}", ".onnx", truncate(model.SerializeToString(), rng)
        )
    mutated = onnx.ModelProto()
    mutated.CopyFrom(model)
    ONNX_MUTATIONS[kind](mutated, rng)
    return Malformed(f"onnx:{kind}", ".onnx", mutated.SerializeToString())


TF_INVALID_MUTATIONS = ("retype_attr", "unknown_attr", "drop_input")
"""GraphDef mutations TensorFlow's importer always refuses."""


def mutate_graph_def(graph, rng: np.random.Generator) -> Malformed:
    from graph_opt.formats.tensorflow.schema import DATA_TYPES, GraphDef

    kinds = ["flip_bytes", "truncate", "remove_node", "duplicate_name", "drop_attr",
             "control_before_data", "undefined_input", "splat_bomb", "value_list_bomb",
             *TF_INVALID_MUTATIONS]  # fmt: skip
    kind = kinds[int(rng.integers(len(kinds)))]
    data = graph.SerializeToString()
    if kind in ("flip_bytes", "truncate"):
        return mutate_bytes(kind, "pb", ".pb", data, rng)
    mutated = GraphDef()
    mutated.ParseFromString(data)
    nodes = mutated.node
    if kind == "retype_attr":
        candidates = [n for n in nodes if "T" in n.attr and n.input] or nodes[:1]
    elif kind.endswith("_input") or kind.startswith("control"):
        candidates = [n for n in nodes if n.input] or nodes[1:]
    else:
        candidates = nodes[1:]
    node = candidates[int(rng.integers(len(candidates)))]
    if kind == "retype_attr":
        string = DATA_TYPES["DT_STRING"]
        node.attr["T"].type = (
            string if node.attr["T"].type != string else DATA_TYPES["DT_BOOL"]
        )
    elif kind == "remove_node":
        del nodes[int(rng.integers(1, len(nodes)))]
    elif kind == "duplicate_name":
        node.name = nodes[0].name
    elif kind == "drop_attr" and node.attr:
        del node.attr[sorted(node.attr)[int(rng.integers(len(node.attr)))]]
    elif kind == "unknown_attr":
        node.attr["kernel_shape"].i = 3
    elif kind == "drop_input":
        del node.input[0]
    elif kind == "control_before_data":
        node.input.insert(0, f"^{nodes[0].name}")
    elif kind == "undefined_input":
        node.input[0] = "undefined_node"
    elif kind.endswith("_bomb"):
        _add_huge_const(nodes, [1.5] if kind == "splat_bomb" else [1.5, 2.5])
    return Malformed(
        f"pb:{kind}", ".pb", mutated.SerializeToString(), kind in TF_INVALID_MUTATIONS
    )


def _add_huge_const(nodes, values: list[float]) -> None:
    """A ~150-byte Const of 1e10 floats: one value (a splat, kept as one) or a
    short list TensorFlow repeats the last value of (refused past the limit)."""
    from graph_opt.formats.tensorflow.schema import DATA_TYPES

    node = nodes.add(name="fuzz_huge", op="Const")
    node.attr["dtype"].type = DATA_TYPES["DT_FLOAT"]
    tensor = node.attr["value"].tensor
    tensor.dtype = DATA_TYPES["DT_FLOAT"]
    for size in (100_000, 100_000):
        tensor.tensor_shape.dim.add().size = size
    tensor.float_val.extend(values)


def mutate_mlir(text: str, rng: np.random.Generator) -> Malformed:
    kinds = ["flip_bytes", "truncate", "drop_line", "swap_lines", "splat_bomb"]
    kind = kinds[int(rng.integers(len(kinds)))]
    if kind in ("flip_bytes", "truncate"):
        return mutate_bytes(kind, "mlir", ".mlir", text.encode(), rng)
    lines = text.splitlines()
    if kind == "splat_bomb":  # 40 GB described in 70 bytes, in the first body
        body = next((i for i, line in enumerate(lines) if line.endswith("{")), 0)
        splat = "%fuzz_splat = nn.constant dense<1.5> : tensor<100000x100000xf32>"
        lines.insert(body + 1, splat)
        return Malformed(f"mlir:{kind}", ".mlir", "\n".join(lines).encode())
    i, j = sorted(int(rng.integers(len(lines))) for _ in range(2))
    if kind == "drop_line":
        del lines[i]
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return Malformed(f"mlir:{kind}", ".mlir", "\n".join(lines).encode())
