"""The table from TensorFlow op types to importers, filled by the modules in `mappings`.

An importer turns one NodeDef into nn ops and returns the node's outputs (an
op, whose results they are, or a list of values). It calls `b.decline(reason)`
when it cannot map this node (e.g. an input that must be constant is not):
the node then becomes `nn.opaque` if that is allowed, else an error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Operation, SSAValue

from graph_opt.formats.registration import registrar

if TYPE_CHECKING:
    from graph_opt.formats.tensorflow.importer import ImportBuilder

Importer = Callable[
    ["ImportBuilder", object, list[SSAValue]], "Operation | Sequence[SSAValue]"
]

IMPORTERS: dict[str, Importer] = {}

SIMPLE_OP_TYPES: dict[type[Operation], str] = {}
"""The TensorFlow op type of each nn op class mapped one to one (without
properties), the first registered: what the GraphDef export writes."""


importer = registrar(IMPORTERS)
"""`@importer("Conv2D", ...)`: the importer of those TensorFlow op types."""


def register_simple(
    op_type: str,
    op_class: type[Operation],
    props: Callable[[ImportBuilder], dict[str, Attribute]] | None = None,
) -> None:
    """A one-to-one mapping: the node's inputs become the op's operands."""

    def import_node(b: ImportBuilder, node, inputs):
        return b.create(op_class, inputs, props(b) if props else {})

    IMPORTERS[op_type] = import_node
    if props is None:
        SIMPLE_OP_TYPES.setdefault(op_class, op_type)


def load_mappings() -> None:
    """Import every mapping module once, which fills the table."""
    import graph_opt.formats.tensorflow.mappings  # noqa: F401
