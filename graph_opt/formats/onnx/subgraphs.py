"""Subgraph attributes (If/Loop/Scan bodies) and the outer-scope values they use by name."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import onnx
from onnx import AttributeProto


def subgraphs(attributes: Iterable[AttributeProto]) -> list[onnx.GraphProto]:
    found = []
    for attr in attributes:
        if attr.type == AttributeProto.GRAPH:
            found.append(attr.g)
        elif attr.type == AttributeProto.GRAPHS:
            found.extend(attr.graphs)
    return found


def _local_names(graph: onnx.GraphProto) -> set[str]:
    names = {i.name for i in graph.input}
    names.update(t.name for t in graph.initializer)
    names.update(t.values.name for t in graph.sparse_initializer)
    for node in graph.node:
        names.update(node.output)
    return names


def _free_names(graph: onnx.GraphProto) -> list[str]:
    local = _local_names(graph)
    used: list[str] = []
    for node in graph.node:
        used.extend(node.input)
        used.extend(outer_names(node.attribute))
    used.extend(o.name for o in graph.output)
    return [n for n in used if n and n not in local]


def outer_names(attributes: Iterable[AttributeProto]) -> list[str]:
    """The outer-scope names the subgraphs of these attributes use, each once, in order of use."""
    names: dict[str, None] = {}
    for graph in subgraphs(attributes):
        names.update(dict.fromkeys(_free_names(graph)))
    return list(names)


def defined_names(attributes: Iterable[AttributeProto]) -> set[str]:
    """Every name the subgraphs define, nested ones included."""
    names: set[str] = set()
    for graph in subgraphs(attributes):
        names |= _local_names(graph)
        for node in graph.node:
            names |= defined_names(node.attribute)
    return names


def rename_outer(attributes: Iterable[AttributeProto], renames: Mapping[str, str]):
    """Make the subgraphs use other names for outer-scope values (in place)."""
    if not renames:
        return
    for graph in subgraphs(attributes):
        local = _local_names(graph)
        outer = {old: new for old, new in renames.items() if old not in local}
        for node in graph.node:
            node.input[:] = [outer.get(n, n) for n in node.input]
            rename_outer(node.attribute, outer)
        for output in graph.output:
            output.name = outer.get(output.name, output.name)
