"""ONNX ModelProto -> a module of the nn dialect."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import AttributeProto
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    BytesAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnrankedTensorType,
    f32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import NNOperation, f32_attr, i64_array
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.frontend.errors import FrontendError
from graph_opt.frontend.names import name_attrs, name_location, set_name_hint
from graph_opt.frontend.onnx_attrs import SIMPLE_TYPES, mlir_attr
from graph_opt.frontend.onnx_op_table import IMPORTERS, load_mappings
from graph_opt.frontend.onnx_types import dense_from_tensor, tensor_type_from_proto

OPSET_ATTR = "nn.onnx_opset_import"
IR_VERSION_ATTR = "nn.onnx_ir_version"
SHAPE_INFERENCE_LIMIT = 1024
"""Initializers above this many elements are hidden from shape inference (it copies the model)."""


class ImportBuilder:
    """What an ONNX op importer sees: the node's context and helpers to build nn ops."""

    def __init__(self, block: Block, value_types: Mapping[str, Attribute], opset: int):
        self.builder = Builder(InsertPoint.at_end(block))
        self.value_types = value_types
        self.opset = opset
        self.node: onnx.NodeProto | None = None

    def create(
        self,
        op_class: type[NNOperation],
        operands: Sequence,
        props: Mapping[str, Attribute],
    ) -> Operation:
        """Insert an nn op, typed by its rule, else by ONNX shape inference."""
        try:
            types = op_class.infer_result_types(
                [SSAValue.get(v) for v in operands], props
            )
        except VerifyException as e:
            raise FrontendError(
                f"node '{self.node_label()}' ({self.node.op_type}): {e}"
            ) from e
        if types is None:
            types = [self.output_type(name, operands) for name in self.node.output]
        op = op_class.create_inferred(list(operands), props, types)
        return self.builder.insert(op)

    def output_type(self, name: str, operands: Sequence) -> Attribute:
        if name in self.value_types:
            return self.value_types[name]
        element = (
            operands[0].type.element_type
            if operands and hasattr(operands[0].type, "element_type")
            else f32
        )
        return UnrankedTensorType(element)

    def node_label(self) -> str:
        return self.node.name or self.node.output[0]

    def constant(self, array: np.ndarray) -> SSAValue:
        return self.builder.insert(ConstantOp.from_array(array)).results[0]

    @staticmethod
    def constant_value(value: SSAValue) -> np.ndarray | None:
        return constant_value(value)

    @staticmethod
    def attrs(node: onnx.NodeProto) -> dict[str, object]:
        return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}

    @staticmethod
    def props_from(
        node: onnx.NodeProto, allowed: Sequence[str]
    ) -> dict[str, Attribute]:
        return {a.name: mlir_attr(a) for a in node.attribute if a.name in allowed}

    @staticmethod
    def f32(value: float) -> Attribute:
        return f32_attr(float(value))


def load_model(path: str) -> onnx.ModelProto:
    """Read an .onnx file (external data included), or raise a one-line FrontendError."""
    try:
        model = onnx.load(path, load_external_data=False)
        onnx.external_data_helper.load_external_data_for_model(
            model, os.path.dirname(os.path.abspath(path))
        )
    except DecodeError as e:
        raise FrontendError(f"{path}: not a valid ONNX model ({e})") from e
    except (OSError, ValueError) as e:
        raise FrontendError(f"{path}: cannot read the model ({e})") from e
    if not model.HasField("graph"):
        raise FrontendError(f"{path}: not a valid ONNX model (no graph)")
    return model


def model_from_bytes(data: bytes, name: str = "<input>") -> onnx.ModelProto:
    try:
        model = onnx.load_from_string(data)
    except DecodeError as e:
        raise FrontendError(f"{name}: not a valid ONNX model ({e})") from e
    if not model.HasField("graph"):
        raise FrontendError(f"{name}: not a valid ONNX model (no graph)")
    return model


def inferred_value_types(model: onnx.ModelProto) -> dict[str, Attribute]:
    """Types of every value that ONNX shape inference knows, without copying large weights."""
    light = onnx.ModelProto()
    _copy_without_weights(model, light)
    try:
        inferred = onnx.shape_inference.infer_shapes(light, data_prop=True)
    except (
        Exception
    ):  # inference is best effort: missing types are filled from our rules
        inferred = light
    types: dict[str, Attribute] = {}
    for info in [
        *inferred.graph.value_info,
        *inferred.graph.output,
        *inferred.graph.input,
    ]:
        try:
            t = tensor_type_from_proto(info.type)
        except FrontendError:
            continue
        if t is not None:
            types[info.name] = t
    return types


def _copy_without_weights(model: onnx.ModelProto, light: onnx.ModelProto) -> None:
    graph = model.graph
    light.ir_version = model.ir_version
    light.opset_import.extend(model.opset_import)
    light.functions.extend(model.functions)
    g = light.graph
    g.node.extend(graph.node)
    g.input.extend(graph.input)
    g.output.extend(graph.output)
    g.value_info.extend(graph.value_info)
    inputs = {i.name for i in graph.input}
    for init in graph.initializer:
        if int(np.prod(init.dims, dtype=np.int64)) <= SHAPE_INFERENCE_LIMIT:
            g.initializer.append(init)
        elif init.name not in inputs:
            g.input.append(
                onnx.helper.make_tensor_value_info(
                    init.name, init.data_type, list(init.dims)
                )
            )


def topological_order(graph: onnx.GraphProto) -> list[onnx.NodeProto]:
    """Nodes in an order where producers come first (ONNX requires it, some exporters forget)."""
    nodes = list(graph.node)
    produced = {out: i for i, n in enumerate(nodes) for out in n.output if out}
    seen: set[str] = set()
    in_order = True
    for n in nodes:
        if any(i in produced and i not in seen for i in n.input if i):
            in_order = False
            break
        seen.update(n.output)
    if in_order:
        return nodes
    waiting = [0] * len(nodes)
    users: dict[int, list[int]] = {}
    for i, n in enumerate(nodes):
        for inp in {x for x in n.input if x in produced}:
            waiting[i] += 1
            users.setdefault(produced[inp], []).append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    order = []
    while ready:
        i = ready.pop()
        order.append(nodes[i])
        for u in users.get(i, []):
            waiting[u] -= 1
            if waiting[u] == 0:
                ready.append(u)
    if len(order) != len(nodes):
        raise FrontendError("the graph has a cycle")
    return order


def opaque_op(
    builder: ImportBuilder, node: onnx.NodeProto, inputs: list[SSAValue | None]
) -> Operation:
    simple = {
        a.name: mlir_attr(a)
        for a in node.attribute
        if a.type in SIMPLE_TYPES and not _string_tensor(a)
    }
    props: dict[str, Attribute] = {"op_type": StringAttr(node.op_type)}
    if node.domain not in ("", "ai.onnx"):
        props["domain"] = StringAttr(node.domain)
    if simple:
        props["attrs"] = DictionaryAttr(simple)
    complex_attrs = [a for a in node.attribute if a.name not in simple]
    if complex_attrs:
        holder = onnx.NodeProto(attribute=complex_attrs)
        props["serialized_attrs"] = BytesAttr(holder.SerializeToString())
    absent = [i for i, v in enumerate(inputs) if v is None]
    if absent:
        props["absent_inputs"] = i64_array(absent)
    present = [v for v in inputs if v is not None]
    types = [builder.output_type(name, present) for name in node.output]
    op = OpaqueOp.build(operands=[present], result_types=[types], properties=props)
    return builder.builder.insert(op)


def _string_tensor(attr: AttributeProto) -> bool:
    return (
        attr.type == AttributeProto.TENSOR
        and attr.t.data_type == onnx.TensorProto.STRING
    )


def import_model(model: onnx.ModelProto, allow_opaque: bool = True) -> ModuleOp:
    """Convert a model; unknown operators become nn.opaque (or, if not allowed, one error listing all)."""
    load_mappings()
    graph = model.graph
    opsets = {o.domain or "": o.version for o in model.opset_import}
    opset = opsets.get("", opsets.get("ai.onnx", 1))
    nodes = topological_order(graph)
    if not allow_opaque:
        unsupported = Counter(n.op_type for n in nodes if n.op_type not in IMPORTERS)
        if unsupported:
            listing = ", ".join(f"{t} ({c})" for t, c in sorted(unsupported.items()))
            raise FrontendError(f"unsupported ONNX operators: {listing}")
    value_types = inferred_value_types(model)
    initializers = {t.name: t for t in graph.initializer}
    graph_inputs = [i for i in graph.input if i.name not in initializers]
    arg_types = []
    for i in graph_inputs:
        t = tensor_type_from_proto(i.type)
        if t is None:
            raise FrontendError(f"graph input '{i.name}' is not a tensor")
        arg_types.append(t)
    block = Block(arg_types=arg_types)
    values: dict[str, SSAValue] = {
        i.name: arg for i, arg in zip(graph_inputs, block.args)
    }
    for i, arg in zip(graph_inputs, block.args):
        set_name_hint(arg, i.name)
    builder = ImportBuilder(block, value_types, opset)
    for name, tensor in initializers.items():
        const = builder.builder.insert(ConstantOp(dense_from_tensor(tensor)))
        const.location = name_location([name])
        values[name] = const.results[0]
        set_name_hint(const.results[0], name)
    for node in nodes:
        builder.node = node
        inputs = []
        for name in node.input:
            if not name:
                inputs.append(None)
            elif name in values:
                inputs.append(values[name])
            else:
                raise FrontendError(
                    f"node '{node.name or node.output[0]}' ({node.op_type}) uses undefined value '{name}'"
                )
        op = None
        if node.domain in ("", "ai.onnx") and node.op_type in IMPORTERS:
            op = IMPORTERS[node.op_type](builder, node, inputs)
        if op is None:
            op = opaque_op(builder, node, inputs)
        if len(op.results) != len(node.output):
            raise FrontendError(
                f"node '{builder.node_label()}' ({node.op_type}) has an unexpected number of outputs"
            )
        op.location = name_location(list(node.output))
        for name, result in zip(node.output, op.results):
            if name:
                values[name] = result
                set_name_hint(result, name)
    outputs = []
    for o in graph.output:
        if o.name not in values:
            raise FrontendError(f"graph output '{o.name}' is not computed by the graph")
        outputs.append(values[o.name])
    block.add_op(func.ReturnOp(*outputs))
    function = func.FuncOp(
        "main",
        FunctionType.from_lists(arg_types, [v.type for v in outputs]),
        Region(block),
        arg_attrs=name_attrs([i.name for i in graph_inputs]),
        res_attrs=name_attrs([o.name for o in graph.output]),
    )
    module = ModuleOp([function])
    module.attributes[OPSET_ATTR] = DictionaryAttr(
        {d: IntegerAttr(v, 64) for d, v in opsets.items()}
    )
    module.attributes[IR_VERSION_ATTR] = IntegerAttr(model.ir_version, 64)
    return module
