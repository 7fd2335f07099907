"""The function library of a GraphDef as bodies the importer can inline.

A FunctionDef's nodes name their inputs `arg` (an argument of the function) or
`node:out_arg:index` (element `index` of the output argument `out_arg` of a
node's op, as its OpDef in `op_defs` sizes them), where a GraphDef writes
`node:flat_index`. A `Body` holds the nodes
rewritten to GraphDef syntax, with one `_Arg` node per argument, so a body
imports like a graph whose arguments are bound to given values.
"""

from __future__ import annotations

from dataclasses import dataclass

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.op_defs import output_args
from graph_opt.formats.tensorflow.schema import FunctionDef, GraphDef, NodeDef

ARG_OP = "_Arg"
"""The pseudo-op of a body argument (TensorFlow's name for it too)."""


@dataclass
class Body:
    """A function as nodes in GraphDef syntax: `_Arg` nodes named after the
    arguments, then the function's nodes; `outputs` are GraphDef input strings."""

    name: str
    nodes: list[NodeDef]
    args: list[str]
    outputs: list[str]


def _flat_input(function: str, nodes: dict[str, NodeDef], text: str) -> str:
    if text.startswith("^") or ":" not in text:
        return text
    parts = text.split(":")
    if len(parts) == 2:
        return text
    name, out_arg, index = parts
    if name not in nodes or not index.isdigit():
        return text  # an undefined node: reported when the body is imported
    args = output_args(nodes[name])
    if args is None:  # an unregistered op, or one not saying its output counts
        return f"{name}:{index}"
    offset = 0
    for arg_name, size in args:
        if arg_name == out_arg:
            return f"{name}:{offset + int(index)}"
        offset += size
    raise FrontendError(
        f"function '{function}': node '{name}' ({nodes[name].op}) has no output '{out_arg}'"
    )


def function_body(function: FunctionDef) -> Body:
    name = function.signature.name
    nodes = {node.name: node for node in function.node_def}
    args = [arg.name for arg in function.signature.input_arg]
    rewritten = [NodeDef(name=arg, op=ARG_OP) for arg in args]
    for node in function.node_def:
        copy = NodeDef()
        copy.CopyFrom(node)
        copy.input[:] = [_flat_input(name, nodes, text) for text in node.input]
        rewritten.append(copy)
    outputs = []
    for out_arg in function.signature.output_arg:
        if out_arg.name not in function.ret:
            raise FrontendError(
                f"function '{name}' does not say what output '{out_arg.name}' returns"
            )
        outputs.append(_flat_input(name, nodes, function.ret[out_arg.name]))
    return Body(name, rewritten, args, outputs)


def library_bodies(graph: GraphDef) -> dict[str, Body]:
    return {
        function.signature.name: function_body(function)
        for function in graph.library.function
    }
