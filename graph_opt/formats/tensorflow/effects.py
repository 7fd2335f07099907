"""TensorFlow ops with side effects that a frozen inference graph can hold, and
the control edges (`^node`) that order them.

Like MLIR's side-effecting ops, they import as nn.opaque (domain "tf": not
pure, so no pass removes, merges or moves them) even without
--allow-tf-opaque, in the order the GraphDef's data and control edges give.
A node that has control inputs from them keeps their names in a discardable
attribute `tf.control_inputs`. The attribute names are IR conventions and live
in graph_opt/dialects/effects.py; this module decides, from a GraphDef, which
nodes are effects and which run after them. Control edges between side-effect-free nodes
(`^NoOp`, a loop's bookkeeping) order nothing observable and are dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from graph_opt.dialects.effects import EFFECT_OPS

if TYPE_CHECKING:
    from graph_opt.formats.tensorflow.functions import Body
    from graph_opt.formats.tensorflow.schema import NodeDef

PRINT_FORMATTING_OPS = frozenset({"StringFormat"})
"""Ops that make the string a print effect prints: opaque, with a string result."""
DT_STRING = 7


def string_valued(node: NodeDef) -> bool:
    """A string constant (an Assert's message) or the string a print formats:
    imported as nn.opaque with a string result, whatever --allow-tf-opaque says."""
    if node.op in PRINT_FORMATTING_OPS:
        return True
    return (
        node.op == "Const"
        and "value" in node.attr
        and node.attr["value"].tensor.dtype == DT_STRING
    )


class EffectfulFunctions:
    """Whether a node has side effects: an effect op, or a call, If or While
    whose functions (transitively) hold one."""

    def __init__(self, library: dict[str, Body]):
        self.library = library
        self.known: dict[str, bool] = {}

    def __call__(self, node: NodeDef) -> bool:
        from graph_opt.formats.tensorflow.mappings.state import STATEFUL_OPS

        if node.op in EFFECT_OPS or node.op in STATEFUL_OPS:
            return True
        if node.op not in CALL_OPS:
            return False
        return any(self.function(name) for name in _called(node))

    def function(self, name: str) -> bool:
        if name not in self.known:
            self.known[name] = False  # recursion guard
            body = self.library.get(name)
            self.known[name] = body is not None and any(self(n) for n in body.nodes)
        return self.known[name]


def _called(node: NodeDef) -> list[str]:
    return [
        value.func.name
        for key, value in node.attr.items()
        if key in ("then_branch", "else_branch", "cond", "body", "f")
        and value.func.name
    ]


CALL_OPS = frozenset(
    {"If", "StatelessIf", "While", "StatelessWhile", "PartitionedCall",
     "StatefulPartitionedCall"}
)  # fmt: skip


def after_effects(
    nodes: dict[str, NodeDef],
    inputs: Callable[[str], list[str]],
    is_effect: EffectfulFunctions,
) -> frozenset[str]:
    """The nodes that run after a side effect: those whose inputs (data or
    control, transitively) include a side-effecting node. A control edge from
    one of them orders an effect (an Assert inside a cond that a NoOp groups)."""
    effects = [name for name, node in nodes.items() if is_effect(node)]
    if not effects:
        return frozenset()
    readers: dict[str, list[str]] = {}
    for name in nodes:
        for source in inputs(name):
            readers.setdefault(source, []).append(name)
    found, stack = set(effects), list(effects)
    while stack:
        for reader in readers.get(stack.pop(), ()):
            if reader not in found:
                found.add(reader)
                stack.append(reader)
    return frozenset(found)
