"""A TF1 GraphDef and a checkpoint -> a frozen GraphDef (what freeze_graph's
`--input_checkpoint` does), without TensorFlow.

Each variable (VariableV2, VarHandleOp) becomes a Const of its checkpoint
value; a ReadVariableOp of it then imports as an identity. The checkpoint key
of a variable is the one the graph's Saver restores it from (a RestoreV2 whose
output i, tensor name i, an Assign or AssignVariableOp writes to the variable),
else its shared name, else its node name, as `tf.compat.v1.train.Saver` saves
it. A partitioned variable's part (`name/part_N`) is the part of the tensor
`name` its RestoreV2's shape-and-slice string names (`tensor_slices`),
taken from the slices the checkpoint stores (`TensorBundle.stored_part`,
`assembled_part`). What only served the variables goes: their initializers
and assignments, the Saver's save and restore ops, and whatever only fed them.

The checkpoint is read as a SavedModel's is (`tensor_bundle`): from the
prefix's own directory, regular files only, every CRC-32C checked.
"""

from __future__ import annotations

import math
from pathlib import Path

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.mappings.state import UPDATES, resource_name
from graph_opt.formats.tensorflow.schema import GraphDef, NodeDef
from graph_opt.formats.tensorflow.tensor_bundle import TensorBundle
from graph_opt.formats.tensorflow.tensor_slices import Extents, parse_slice_spec
from graph_opt.formats.tensorflow.tensors import MAPPED_ATTR, dtype_name, shape_dims
from graph_opt.weights import WeightBytes

VARIABLE_OPS = frozenset({"VariableV2", "VarHandleOp"})
SAVER_OPS = frozenset(
    {"SaveV2", "RestoreV2", "MergeV2Checkpoints", "VarIsInitializedOp",
     "IsVariableInitialized", "DisableCopyOnRead"}
)  # fmt: skip
"""Ops that save, restore or query variables (or, DisableCopyOnRead, set how
a Saver reads one): nothing left to do once frozen."""
DT_REF_OFFSET = 100
DT_BOOL = 10  # (stored as 0/1, held as 0/0xFF: read, not mapped)
MAP_MIN_ELEMENTS = 1024
"""Values of more elements than this are mapped (as ONNX initializers are)."""


def freeze_with_checkpoint(
    graph: GraphDef, prefix: str | Path, mapped: dict[str, WeightBytes] | None = None
) -> GraphDef:
    """A copy of `graph` whose variables are constants of the checkpoint at
    `prefix` (see the module's doc); a variable the checkpoint lacks, or holds
    at another dtype or shape, is a one-line FrontendError. Given `mapped`,
    large values are mapped into it (see `bind_value`)."""
    bundle = TensorBundle(prefix)
    frozen = GraphDef()
    frozen.CopyFrom(graph)
    keys = _restored_keys(frozen.node)
    variables = set()
    for node in frozen.node:
        if node.op in VARIABLE_OPS:
            key, spec = keys.get(node.name, (resource_name(node), ""))
            extents = _checked_value(bundle, node, key, spec)
            bind_value(node, bundle, key, mapped, extents)
            variables.add(node.name)
    kept = {n.name for n in _without_variable_machinery(list(frozen.node), variables)}
    frozen.node.sort(key=lambda node: node.name not in kept)  # (moves, never copies)
    del frozen.node[len(kept) :]
    return frozen


def bind_value(
    node: NodeDef,
    bundle: TensorBundle,
    key: str,
    mapped: dict | None,
    extents: Extents | None = None,
) -> None:
    """Make `node` a Const of the checkpoint tensor `key` (its part `extents`,
    for a partitioned variable): given `mapped`, a value stored whole (a
    tensor, or one slice of it) of more than MAP_MIN_ELEMENTS elements (not
    bool) is mapped into it by node name (`TensorBundle.mapped`) and its Const
    left marked and empty (`MAPPED_ATTR`); any other is read, a part stored
    in several slices assembled from them."""
    entry = bundle.entries[key]
    if extents is None:
        extents = tuple((0, size) for size in shape_dims(entry.shape) or [])
    source = bundle.stored_part(key, extents)
    dims = [length for _, length in extents]
    large = math.prod(dims) > MAP_MIN_ELEMENTS and entry.dtype != DT_BOOL
    if source is None:
        make_const(node, bundle.assembled_part(key, extents), entry.dtype)
    elif mapped is not None and large:
        mapped[node.name] = bundle.mapped(source)
        make_const(node, None, entry.dtype, dims)
    else:
        make_const(node, bundle.tensor(source), entry.dtype)


def _source(text: str) -> tuple[str, int]:
    name, _, index = text.lstrip("^").partition(":")
    return name, int(index) if index.isdigit() else 0


def _restored_keys(nodes) -> dict[str, tuple[str, str]]:
    """The checkpoint key each variable the graph's Saver restores is read
    from, and the shape-and-slice string that names its part ("": all)."""
    by_name = {node.name: node for node in nodes}
    keys = {}
    for node in nodes:
        if node.op not in ("Assign", "AssignVariableOp") or len(node.input) < 2:
            continue
        value, index = _source(node.input[1])
        while value in by_name and by_name[value].op == "Identity":
            value, index = _source(by_name[value].input[0])
        restore = by_name.get(value)
        if restore is None or restore.op != "RestoreV2":
            continue
        names = by_name.get(_source(restore.input[1])[0])
        if names is None or names.op != "Const":
            continue
        strings = names.attr["value"].tensor.string_val
        specs = (
            by_name.get(_source(restore.input[2])[0])
            if len(restore.input) > 2
            else None
        )
        spec_strings = specs.attr["value"].tensor.string_val if specs else []
        if index < len(strings):
            spec = spec_strings[index].decode() if index < len(spec_strings) else ""
            keys[_source(node.input[0])[0]] = (strings[index].decode(), spec)
    return keys


def _checked_value(
    bundle: TensorBundle, node: NodeDef, key: str, spec: str
) -> Extents | None:
    """The part of checkpoint tensor `key` that variable `node` restores (None:
    all of it), refused in one line unless the checkpoint holds it at the
    variable's dtype and shape."""
    entry = bundle.entries.get(key)
    if entry is None:
        raise FrontendError(
            f"{bundle.prefix}: no value for variable '{node.name}' (key '{key}')"
        )
    try:
        part = parse_slice_spec(spec)
    except ValueError as e:
        raise FrontendError(f"variable '{node.name}': {e}") from e
    dtype = node.attr["dtype"].type % DT_REF_OFFSET
    shape = shape_dims(node.attr["shape"].shape) if "shape" in node.attr else None
    stored = shape_dims(entry.shape) or []
    if part is None:
        whole, restored = stored, stored
    else:
        whole, restored = part[0], [length for _, length in part[1]]
    if (
        entry.dtype != dtype
        or whole != stored
        or (shape is not None and shape != restored)
    ):
        what = f"'{key}'" + ("" if part is None else f" (part {spec})")
        raise FrontendError(
            f"{bundle.prefix}: variable '{node.name}' is {dtype_name(dtype)} "
            f"{shape}, its checkpoint value {what} {dtype_name(entry.dtype)} {stored}"
        )
    return None if part is None else part[1]


def make_const(node: NodeDef, array, dtype: int, dims=None) -> None:
    """Turn `node` (a variable) into a Const of `array`, keeping its name and
    device; with `array` None, a Const of `dims` whose value is held apart
    (`MAPPED_ATTR`: a mapped weight, see `saved_model`)."""
    name, device = node.name, node.device
    node.Clear()
    node.name, node.op, node.device = name, "Const", device
    node.attr["dtype"].type = dtype
    tensor = node.attr["value"].tensor
    tensor.dtype = dtype
    for size in array.shape if array is not None else dims:
        tensor.tensor_shape.dim.add(size=size)
    if array is None:
        node.attr[MAPPED_ATTR].b = True
    else:
        tensor.tensor_content = array.tobytes()


def _without_variable_machinery(nodes: list[NodeDef], variables: set[str]):
    """The nodes but the writes to `variables`, the Saver's ops, the nodes that
    read those (data or control edges) and the nodes that only fed them."""
    readers: dict[str, set[str]] = {node.name: set() for node in nodes}
    for node in nodes:
        for text in node.input:
            readers.setdefault(_source(text)[0], set()).add(node.name)
    dropped = {
        node.name
        for node in nodes
        if node.op in SAVER_OPS
        or (
            node.op in UPDATES and node.input and _source(node.input[0])[0] in variables
        )
    }
    stack = list(dropped)
    while stack:
        for reader in readers[stack.pop()]:
            if reader not in dropped:
                dropped.add(reader)
                stack.append(reader)
    by_name = {node.name: node for node in nodes}
    stack = [_source(t)[0] for name in dropped for t in by_name[name].input]
    while stack:
        name = stack.pop()
        if name in dropped or not readers[name] or not readers[name] <= dropped:
            continue
        dropped.add(name)
        stack.extend(_source(t)[0] for t in by_name[name].input)
    return [node for node in nodes if node.name not in dropped]
