"""The table between ONNX operators and nn ops, filled by the modules in `onnx_mappings`.

An importer turns one ONNX node into nn ops, or returns None to keep the node
as `nn.opaque` (for example when an input that the nn op needs as a constant
is computed at run time). An exporter turns one nn op into ONNX nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Operation

from graph_opt.formats.onnx.attrs import mlir_attr, onnx_attr
from graph_opt.formats.registration import registrar

if TYPE_CHECKING:
    from graph_opt.formats.onnx.exporter import ExportBuilder
    from graph_opt.formats.onnx.importer import ImportBuilder

Importer = Callable[["ImportBuilder", object, list], "Operation | None"]
Exporter = Callable[["ExportBuilder", Operation], None]

IMPORTERS: dict[str, Importer] = {}
EXPORTERS: dict[type[Operation], Exporter] = {}


importer = registrar(IMPORTERS)
"""`@importer("Conv", ...)`: the importer of those ONNX operators."""
exporter = registrar(EXPORTERS)
"""`@exporter(ConvOp, ...)`: the exporter of those nn op classes."""


def register_simple(
    op_type: str,
    op_class: type[Operation],
    renames: Mapping[str, str] | None = None,
    ignored: tuple[str, ...] = (),
) -> None:
    """A one-to-one mapping: same inputs and outputs, attributes renamed (ONNX name -> property)."""
    renames = dict(renames or {})
    back = {prop: onnx_name for onnx_name, prop in renames.items()}
    allowed = set(op_class.get_irdl_definition().properties)

    def import_node(b: ImportBuilder, node, inputs):
        if None in inputs:
            return None
        props: dict[str, Attribute] = {}
        for attr in node.attribute:
            if attr.name in ignored:
                continue
            prop = renames.get(attr.name, attr.name)
            if prop not in allowed:
                return None
            props[prop] = mlir_attr(attr)
        return b.create(op_class, inputs, props)

    def export_op(e: ExportBuilder, op: Operation) -> None:
        attrs = [onnx_attr(back.get(k, k), v) for k, v in op.properties.items()]
        e.node(op_type, list(op.operands), list(op.results), attrs)

    IMPORTERS[op_type] = import_node
    EXPORTERS[op_class] = export_op


def load_mappings() -> None:
    """Import the mapping modules once, which fills the tables (but for
    `LATER_MAPPINGS`)."""
    import graph_opt.formats.onnx.mappings  # noqa: F401


LATER_MAPPINGS = {
    "scf": "graph_opt.formats.onnx.mappings.control_flow",
    "tensor": "graph_opt.formats.onnx.mappings.control_flow",
}
"""Exporters of upstream dialects' ops, imported with the first such op: only
modules that the TensorFlow frontend or MLIR text built hold them, and importing
those dialects costs ~15 ms of every start."""


def exporter_of(op_class: type[Operation]) -> Exporter | None:
    found = EXPORTERS.get(op_class)
    if found is None:
        module = LATER_MAPPINGS.get(op_class.name.partition(".")[0])
        if module is not None:
            import_module(module)
            found = EXPORTERS.get(op_class)
    return found


def check_channels_first(e, op) -> None:
    """The export moves channels-last ops to NCHW first; one left here had an
    input of unknown rank, which no transpose can describe."""
    if op.layout != "NCHW":
        e.unsupported(
            op,
            f"its {op.layout} input has an unknown rank, so it cannot be moved to "
            "ONNX's channels-first layout: give the input shapes (e.g. --input-shape)",
        )
