"""scf.if -> ONNX If, scf.while -> ONNX Loop; tensor.extract/tensor.cast -> Identity.

Regions become subgraphs that read outer values by name. ONNX's Loop tests its
condition before each iteration, as scf.while does, but computes the next
condition in its body: so the before region is emitted twice, once in the outer
graph on the initial values (the first condition and forwarded values) and once
at the end of the Loop body on the after region's results. The Loop carries the
forwarded values, which are the scf.while's results when the condition fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import onnx
from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.ir import Block, SSAValue

from graph_opt.formats.onnx.op_table import exporter
from graph_opt.formats.onnx.types import value_info_for

if TYPE_CHECKING:
    from graph_opt.formats.onnx.exporter import ExportBuilder


def _bool_info(name: str) -> onnx.ValueInfoProto:
    return onnx.helper.make_tensor_value_info(name, onnx.TensorProto.BOOL, [])


def _info(name: str, value: SSAValue) -> onnx.ValueInfoProto:
    if isinstance(value.type, TensorType | UnrankedTensorType):
        return value_info_for(name, value.type)
    return _bool_info(name)  # an i1 condition, a 0-d bool tensor in ONNX


def _emit_block(e: ExportBuilder, block: Block, args: Sequence[str]) -> list[SSAValue]:
    """Emit the block's ops with its arguments named `args` (fresh names each
    time, so a block may be emitted twice); return the terminator's operands."""
    from graph_opt.formats.onnx.exporter import export_op  # imports the mappings

    for arg, name in zip(block.args, args):
        e.names[arg] = name
    for op in block.ops:
        if op is block.last_op:
            break
        for result in op.results:
            e.names.pop(result, None)
        for region in op.regions:
            for nested in region.walk():
                for result in nested.results:
                    e.names.pop(result, None)
        export_op(e, op)
    return list(block.last_op.operands) if block.last_op else []


def _graph(
    e: ExportBuilder,
    name: str,
    emit,
    inputs: Sequence[onnx.ValueInfoProto],
) -> onnx.GraphProto:
    """A subgraph of the nodes `emit()` adds; its outputs copy the values it returns."""
    graph = onnx.GraphProto(name=name)
    outer, e.nodes = e.nodes, graph.node
    for value in emit():
        output = e.fresh(f"{name}_out")
        e.node("Identity", [value], [output])
        graph.output.append(_info(output, value))
    graph.input.extend(inputs)
    e.nodes = outer
    return graph


@exporter(tensor.ExtractOp, tensor.CastOp)
def export_identity(e: ExportBuilder, op) -> None:
    if isinstance(op, tensor.ExtractOp) and op.indices:
        e.unsupported(op, "only 0-d tensors are read")
    e.node("Identity", [op.operands[0]], [op.results[0]])


@exporter(scf.IfOp)
def export_if(e: ExportBuilder, op: scf.IfOp) -> None:
    if not op.false_region.blocks:
        e.unsupported(op, "an scf.if without else region")
    base = e.fresh("if")
    branches = {
        attr: _graph(
            e, f"{base}_{attr}", lambda r=region: _emit_block(e, r.block, []), []
        )
        for attr, region in (
            ("then_branch", op.true_region),
            ("else_branch", op.false_region),
        )
    }
    e.node("If", [op.cond], list(op.results), branches)


@exporter(scf.WhileOp)
def export_while(e: ExportBuilder, op: scf.WhileOp) -> None:
    before, after = op.before_region.block, op.after_region.block
    base = e.fresh("while")
    first = [
        e.names[v] for v in _emit_block(e, before, [e.names[v] for v in op.arguments])
    ]
    condition, forwarded = first[0], first[1:]
    carried = [e.fresh(f"{base}_carried") for _ in forwarded]
    iteration, condition_in = e.fresh(f"{base}_i"), e.fresh(f"{base}_cond_in")

    def body() -> list[SSAValue]:
        results = _emit_block(e, after, carried)
        return _emit_block(e, before, [e.names[v] for v in results])

    inputs = [
        onnx.helper.make_tensor_value_info(iteration, onnx.TensorProto.INT64, []),
        _bool_info(condition_in),
    ] + [_info(name, arg) for name, arg in zip(carried, after.args)]
    graph = _graph(e, f"{base}_body", body, inputs)
    e.node("Loop", ["", condition, *forwarded], list(op.results), {"body": graph})
