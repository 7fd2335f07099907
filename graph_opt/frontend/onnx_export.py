"""A module of the nn dialect -> ONNX ModelProto."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from onnx import AttributeProto
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.frontend.errors import FrontendError
from graph_opt.frontend.names import argument_names, op_result_names, result_names
from graph_opt.frontend.onnx_attrs import onnx_attr
from graph_opt.frontend.onnx_import import IR_VERSION_ATTR, OPSET_ATTR
from graph_opt.frontend.onnx_op_table import EXPORTERS, load_mappings
from graph_opt.frontend.onnx_types import tensor_from_dense, value_info_for
from graph_opt.interpreter.runner import entry_function

DEFAULT_OPSET = 18


class ExportBuilder:
    """What an nn op exporter sees: value names and helpers to emit nodes and initializers."""

    def __init__(self, opset: int):
        self.opset = opset
        self.names: dict[SSAValue, str] = {}
        self.taken: set[str] = set()
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.counter = 0

    def fresh(self, hint: str | None = None) -> str:
        if hint and hint not in self.taken:
            self.taken.add(hint)
            return hint
        base = hint or "v"
        while True:
            self.counter += 1
            name = f"{base}_{self.counter}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def name_results(self, op: Operation) -> None:
        for result, hint in zip(op.results, op_result_names(op)):
            self.names[result] = self.fresh(hint)

    def name(self, value: SSAValue | str) -> str:
        return value if isinstance(value, str) else self.names[value]

    def node(
        self,
        op_type: str,
        inputs: Sequence[SSAValue | str],
        outputs: Sequence[SSAValue | str],
        attrs: Sequence[AttributeProto] | Mapping[str, object] = (),
        domain: str = "",
    ) -> onnx.NodeProto:
        if isinstance(attrs, Mapping):
            attrs = self.attrs(**attrs)
        out_names = [self.name(o) for o in outputs]
        node = onnx.NodeProto(
            op_type=op_type,
            input=[self.name(i) for i in inputs],
            output=out_names,
            name=out_names[0] if out_names else self.fresh(op_type),
            domain=domain,
        )
        node.attribute.extend(attrs)
        self.nodes.append(node)
        return node

    def initializer(self, array: np.ndarray, hint: str = "const") -> str:
        name = self.fresh(hint)
        self.initializers.append(onnx.numpy_helper.from_array(np.asarray(array), name))
        return name

    @staticmethod
    def attrs(**values: object) -> list[AttributeProto]:
        return [
            onnx.helper.make_attribute(k, v) for k, v in values.items() if v is not None
        ]

    @staticmethod
    def props_to_attrs(props: Mapping[str, Attribute]) -> list[AttributeProto]:
        return [onnx_attr(k, v) for k, v in props.items()]

    @staticmethod
    def numpy_dtype(value: SSAValue) -> np.dtype:
        return numpy_dtype(value.type.element_type)  # type: ignore[attr-defined]

    @staticmethod
    def unsupported(op: Operation, reason: str):
        raise FrontendError(f"cannot export {op.name} to ONNX: {reason}")


def export_opaque(e: ExportBuilder, op: OpaqueOp) -> None:
    attrs = e.props_to_attrs(op.attrs.data) if op.attrs is not None else []
    if op.serialized_attrs is not None:
        holder = onnx.NodeProto()
        holder.ParseFromString(op.serialized_attrs.data)
        attrs.extend(holder.attribute)
    absent = (
        set(op.absent_inputs.get_values()) if op.absent_inputs is not None else set()
    )
    present = iter(op.operands)
    inputs: list[SSAValue | str] = [
        "" if i in absent else next(present)
        for i in range(len(op.operands) + len(absent))
    ]
    domain = op.domain.data if op.domain is not None else ""
    e.node(op.op_type.data, inputs, list(op.results), attrs, domain)


def export_module(module: ModuleOp, function: str | None = None) -> onnx.ModelProto:
    """Convert the module's entry function to an ONNX model."""
    load_mappings()
    target = entry_function(module, function)
    opsets = {"": DEFAULT_OPSET}
    if isinstance(stored := module.attributes.get(OPSET_ATTR), DictionaryAttr):
        opsets = {k: v.value.data for k, v in stored.data.items()}  # type: ignore[attr-defined]
    builder = ExportBuilder(opsets.get("", DEFAULT_OPSET))
    block = target.body.blocks.first
    inputs = []
    for arg, name in zip(block.args, argument_names(target)):
        builder.names[arg] = builder.fresh(name)
        inputs.append(value_info_for(builder.names[arg], arg.type))
    out_names = result_names(target)
    builder.taken.update(out_names)
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            returned = list(op.operands)
            continue
        builder.name_results(op)
        if isinstance(op, ConstantOp):
            builder.initializers.append(
                tensor_from_dense(builder.names[op.output], op.value)
            )
        elif isinstance(op, OpaqueOp):
            export_opaque(builder, op)
        elif type(op) in EXPORTERS:
            EXPORTERS[type(op)](builder, op)
        else:
            raise FrontendError(f"cannot export {op.name} to ONNX: no ONNX form")
    outputs = []
    for value, name in zip(returned, out_names):
        if builder.names[value] != name:
            builder.taken.discard(name)
            builder.node("Identity", [value], [builder.fresh(name)])
        outputs.append(value_info_for(name, value.type))
    graph = onnx.helper.make_graph(
        builder.nodes, "main", inputs, outputs, builder.initializers
    )
    model = onnx.helper.make_model(
        graph,
        opset_imports=[onnx.helper.make_opsetid(d, v) for d, v in opsets.items()],
        producer_name="graph-opt",
    )
    if isinstance(ir := module.attributes.get(IR_VERSION_ATTR), IntegerAttr):
        model.ir_version = max(ir.value.data, 3)
    return model
