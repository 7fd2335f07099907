"""PlaceholderWithDefault: its default input unless the user feeds it.

A PlaceholderWithDefault imports as an identity of its default (the value the
graph uses when nothing is fed). Named in `input_shapes` (`--input-shape
NAME=dims`), it becomes a plain placeholder, a function argument, instead.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from graph_opt.formats.tensorflow.schema import NodeDef

WITH_DEFAULT = "PlaceholderWithDefault"


def feed_defaults(nodes: Sequence[NodeDef], fed: Container[str]) -> Sequence[NodeDef]:
    """The nodes, each PlaceholderWithDefault named in `fed` made a Placeholder."""
    if not any(node.op == WITH_DEFAULT and node.name in fed for node in nodes):
        return nodes
    return [
        _placeholder(n) if n.op == WITH_DEFAULT and n.name in fed else n for n in nodes
    ]


def _placeholder(node: NodeDef) -> NodeDef:
    placeholder = NodeDef(name=node.name, op="Placeholder", device=node.device)
    for key in ("dtype", "shape"):
        if key in node.attr:
            placeholder.attr[key].CopyFrom(node.attr[key])
    return placeholder
