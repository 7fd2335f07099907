"""An nn.opaque ONNX operator imported again, now that passes have made its
inputs constant or its shapes static (a Resize whose sizes were computed)."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue

from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.shapes import more_precise
from graph_opt.rewriting.purity import ONNX_DOMAINS


class OpaqueResultTypes:
    """The value types an importer may ask for: the opaque op's result types."""

    def __init__(self, types: dict[str, Attribute]):
        self.types = types

    def get(self, name: str) -> Attribute | None:
        return self.types.get(name)


def onnx_opset(op: Operation) -> int | None:
    """The default-domain opset the module was imported with, if recorded."""
    module = op.get_toplevel_object()
    stored = (
        module.attributes.get("nn.onnx_opset_import")
        if isinstance(module, ModuleOp)
        else None
    )
    version = stored.data.get("") if stored is not None else None  # type: ignore[attr-defined]
    return version.value.data if isinstance(version, IntegerAttr) else None


def reimport(op: OpaqueOp) -> tuple[list[Operation], list[SSAValue]] | None:
    """The nn ops the ONNX importer makes of `op` now, and their values replacing
    op's results; None when it still keeps the operator opaque, or types its
    results in a way that contradicts op's result types."""
    from graph_opt.formats.onnx.exporter import ExportBuilder, export_opaque
    from graph_opt.formats.onnx.importer import ImportBuilder
    from graph_opt.formats.onnx.op_table import IMPORTERS, load_mappings

    domain = op.domain.data if op.domain is not None else ""
    opset = onnx_opset(op)
    if domain not in ONNX_DOMAINS or opset is None or op.implicit_inputs is not None:
        return None
    load_mappings()
    importer = IMPORTERS.get(op.op_type.data)
    if importer is None:
        return None
    exporter = ExportBuilder(opset)
    for i, value in enumerate(op.operands):
        exporter.names[value] = f"in{i}"
    for i, value in enumerate(op.results):
        exporter.names[value] = f"out{i}"
    export_opaque(exporter, op)
    (node,) = exporter.nodes
    by_name = {name: value for value, name in exporter.names.items()}
    block = Block()
    builder = ImportBuilder(
        block,
        OpaqueResultTypes({f"out{i}": r.type for i, r in enumerate(op.results)}),
        opset,
    )
    builder.node = node
    inputs = [by_name[name] if name else None for name in node.input]
    made = importer(builder, node, inputs)
    if made is None or len(made.results) != len(op.results):
        return None
    if not all(
        new.type == old.type or more_precise(new.type, old.type)
        for new, old in zip(made.results, op.results)
    ):
        return None
    ops = list(block.ops)
    for o in ops:
        o.detach()
    return ops, list(made.results)
