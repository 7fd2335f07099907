"""TensorFlow's op registry without TensorFlow: every OpDef (written by
tests/formats/tensorflow/make_op_defs.py into `op_defs.pb.gz`), the types of a
node's arguments, and the type attributes a node's inputs imply."""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources

from graph_opt.formats.tensorflow.schema import DATA_TYPES, GraphDef, NodeDef, OpList

REF = 100
"""A reference type is its value type + REF (types.proto)."""
TYPE_NAMES = {number: name[3:].lower() for name, number in DATA_TYPES.items()}


@cache
def op_defs() -> dict[str, object]:
    """TensorFlow's OpDefs by op name."""
    data = resources.files(__package__).joinpath("op_defs.pb.gz").read_bytes()
    ops = OpList()
    ops.ParseFromString(gzip.decompress(data))
    return {op.name: op for op in ops.op}


def arg_types(node: NodeDef, args: Iterable) -> list[int] | None:
    """The flat types of the arguments `args` (an OpDef's input_arg or
    output_arg) of `node`, or None when an attribute they depend on is absent."""
    types: list[int] = []
    for arg in args:
        if arg.type_list_attr:
            if arg.type_list_attr not in node.attr:
                return None
            types.extend(node.attr[arg.type_list_attr].list.type)
            continue
        if arg.type_attr:
            if arg.type_attr not in node.attr:
                return None
            dtype = node.attr[arg.type_attr].type
        else:
            dtype = arg.type
        count = 1
        if arg.number_attr:
            if arg.number_attr not in node.attr:
                return None
            count = node.attr[arg.number_attr].i
        types.extend([dtype + REF if arg.is_ref else dtype] * count)
    return types


def output_args(node: NodeDef) -> list[tuple[str, int]] | None:
    """Each output argument of `node` (its OpDef's, sized by the node's
    attributes) and its length, or None for an unregistered op or a missing
    attribute. A FunctionDef names output `k` of argument `arg` `node:arg:k`."""
    op_def = op_defs().get(node.op)
    if op_def is None:
        return None
    sizes = []
    for arg in op_def.output_arg:
        size_attr = arg.type_list_attr or arg.number_attr
        if size_attr and size_attr not in node.attr:
            return None
        if arg.type_list_attr:
            sizes.append((arg.name, len(node.attr[size_attr].list.type)))
        else:
            sizes.append((arg.name, node.attr[size_attr].i if size_attr else 1))
    return sizes


def output_types(graph: GraphDef) -> dict[str, list[int] | None]:
    """Each node's output types (None for unregistered ops or missing attributes)."""
    defs = op_defs()
    return {
        node.name: (op_def := defs.get(node.op)) and arg_types(node, op_def.output_arg)
        for node in graph.node
    }


def source(text: str) -> tuple[str, int]:
    """The node and output index a data input (`node` or `node:1`) reads."""
    name, _, index = text.rpartition(":")
    return (name, int(index)) if name and index.isdigit() else (text, 0)


def infer_type_attrs(node: NodeDef, producers: Mapping[str, NodeDef]) -> None:
    """Set the type and length attributes of `node` that its data inputs imply
    (`T`, `N`, `Tidx`, ...), as TensorFlow's op builders do, from the nodes in
    `producers` (by name); attributes already set are kept."""
    op_def = op_defs().get(node.op)
    if op_def is None:
        return
    data = [source(text) for text in node.input if not text.startswith("^")]
    variadic = [a for a in op_def.input_arg if a.number_attr or a.type_list_attr]
    shared = len(data) - (len(op_def.input_arg) - len(variadic))
    position = 0
    for arg in op_def.input_arg:
        count = 1
        if arg.number_attr:
            if arg.number_attr not in node.attr and len(variadic) == 1:
                node.attr[arg.number_attr].i = shared
            count = node.attr[arg.number_attr].i
        elif arg.type_list_attr:
            given = arg.type_list_attr in node.attr
            known = node.attr[arg.type_list_attr].list.type if given else []
            count = shared if len(variadic) == 1 and not known else len(known)
        types = [_type_of(producers, ref) for ref in data[position : position + count]]
        position += count
        if None in types or not types:
            continue
        if arg.type_list_attr and arg.type_list_attr not in node.attr:
            node.attr[arg.type_list_attr].list.type.extend(t % REF for t in types)
        elif arg.type_attr and arg.type_attr not in node.attr:
            node.attr[arg.type_attr].type = types[0] % REF


def _type_of(producers: Mapping[str, NodeDef], ref: tuple[str, int]) -> int | None:
    producer = producers.get(ref[0])
    op_def = producer is not None and op_defs().get(producer.op)
    if not op_def:
        return None
    types = arg_types(producer, op_def.output_arg)
    return types[ref[1]] if types is not None and ref[1] < len(types) else None
