"""ONNX ModelProto -> a module of the nn dialect."""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import islice

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import AttributeProto
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    f32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import NNOperation, f32_attr, i64_array
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.names import name_attrs, name_location, set_name_hint
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.shapes import VALUE_CLASSES
from graph_opt.dialects.nn.types import StringType
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx import validation
from graph_opt.formats.onnx.attrs import SIMPLE_TYPES, mlir_attr
from graph_opt.formats.onnx.external_data import (
    external_tensors,
    map_initializers,
    read_external_data,
)
from graph_opt.formats.onnx.op_table import IMPORTERS, load_mappings
from graph_opt.formats.onnx.subgraphs import outer_names
from graph_opt.formats.onnx.types import (
    dense_from_tensor,
    dim_params,
    onnx_element_type,
    type_from_proto,
)
from graph_opt.gc_pause import collector_paused
from graph_opt.heap import release_freed_heap
from graph_opt.progress import chunked_progress
from graph_opt.verification import SignatureVerifier, signature_verifiable
from graph_opt.weights import WeightBytes
from graph_opt.xdsl_compat.ir import operand_values

OPSET_ATTR = "nn.onnx_opset_import"
IR_VERSION_ATTR = "nn.onnx_ir_version"
FUNCTIONS_ATTR = "nn.onnx_functions"
"""The model's local functions (serialized FunctionProtos), which its nodes may call."""
SHAPE_INFERENCE_LIMIT = 1024
"""Initializers above this many elements are hidden from shape inference (it copies the model)."""


class ImportBuilder:
    """What an ONNX op importer sees: the node's context and helpers to build nn ops."""

    def __init__(self, block: Block, value_types: ValueTypes, opset: int):
        self.builder = Builder(InsertPoint.at_end(block))
        self.block = block
        self.value_types = value_types
        self.opset = opset
        self.node: onnx.NodeProto | None = None
        self.typed_by_rule: dict[Operation, tuple[SSAValue, ...]] = {}
        """Ops whose result types their own rule gave, with the operands it saw."""
        self.initializer_ops = 0
        """How many ops the initializers made (the block's first ops)."""
        self.subgraphs = True
        """Whether a node of the graph may have subgraphs."""

    def create(
        self,
        op_class: type[NNOperation],
        operands: Sequence,
        props: Mapping[str, Attribute],
    ) -> Operation:
        """Insert an nn op, typed by its rule, else by ONNX shape inference."""
        flat = [v if type(v) in VALUE_CLASSES else SSAValue.get(v) for v in operands]
        try:
            types = op_class.rule_result_types(flat, props)
        except VerifyException as e:
            raise FrontendError(
                f"node '{self.node_label()}' ({self.node.op_type}): {e}"
            ) from e
        if types is None:
            types = [self.output_type(name, operands) for name in self.node.output]
            return op_class.create_inferred(flat, props, types, self.block)
        op = op_class.create_inferred(flat, props, types, self.block)
        self.typed_by_rule[op] = tuple(flat)
        return op

    def insert(self, op: Operation) -> Operation:
        """Append an op to the graph (cheaper than a Builder, for large graphs)."""
        self.block.add_op(op)
        return op

    def output_type(self, name: str, operands: Sequence) -> Attribute:
        if (known := self.value_types.get(name)) is not None:
            return known
        element = (
            operands[0].type.element_type
            if operands and hasattr(operands[0].type, "element_type")
            else f32
        )
        return UnrankedTensorType(element)

    def node_label(self) -> str:
        return self.node.name or self.node.output[0]

    def constant(self, array: np.ndarray) -> SSAValue:
        return self.insert(ConstantOp.from_array(array)).results[0]

    @staticmethod
    def constant_value(value: SSAValue) -> np.ndarray | None:
        return constant_value(value)

    @staticmethod
    def attrs(node: onnx.NodeProto) -> dict[str, object]:
        values: dict[str, object] = {}
        for a in node.attribute:  # ints and floats directly: the common, cheap case
            kind = a.type
            if kind == AttributeProto.INT:
                values[a.name] = a.i
            elif kind == AttributeProto.FLOAT:
                values[a.name] = a.f
            else:
                values[a.name] = onnx.helper.get_attribute_value(a)
        return values

    @staticmethod
    def props_from(
        node: onnx.NodeProto, allowed: Sequence[str]
    ) -> dict[str, Attribute]:
        return {a.name: mlir_attr(a) for a in node.attribute if a.name in allowed}

    @staticmethod
    def f32(value: float) -> Attribute:
        return f32_attr(float(value))


def load_model(
    path: str, base_dir: str | os.PathLike | None = None, *, read_external=True
) -> onnx.ModelProto:
    """Read an .onnx file, its external data included (from `base_dir`, by
    default the file's directory: see `model_directory`), or raise a one-line
    FrontendError. With `read_external=False`, external tensors are left for
    `import_model(model, base_dir=model_directory(path, base_dir))` to map."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FrontendError(f"{path}: cannot read the model ({e.strerror})") from e
    model = model_from_bytes(data, path)
    if read_external and _may_use_external_data(model, data):
        directory = model_directory(path, base_dir)
        read_external_data(external_tensors(model), directory, path)
    return model


def model_directory(path: str, base_dir: str | os.PathLike | None) -> str | os.PathLike:
    """Where the external data of the model file `path` is read from."""
    return base_dir if base_dir is not None else os.path.dirname(path) or "."


def _may_use_external_data(model: onnx.ModelProto, data: bytes) -> bool:
    """False when no tensor of the model is stored outside it, by the cheaper test.

    onnx's loader visits every tensor and node attribute (~3 us per node or
    initializer: 5x the parse of a large graph). Tensors stored outside name their
    file under the key "location", so a model whose bytes lack it has none; the
    search costs ~0.4 ns per byte, which is less on graphs of many small nodes.
    """
    graph = model.graph
    items = len(graph.node) + len(graph.initializer)
    return len(data) > BYTES_SEARCHED_PER_ITEM * items or _EXTERNAL_DATA_KEY in data


_EXTERNAL_DATA_KEY = b"location"
BYTES_SEARCHED_PER_ITEM = 7500
"""Search the bytes for external data up to this size per node or initializer
(where the search costs less than onnx's visit of every tensor)."""


def model_from_bytes(data: bytes, name: str = "<input>") -> onnx.ModelProto:
    try:
        model = onnx.load_from_string(data)
    except DecodeError as e:
        raise FrontendError(f"{name}: not a valid ONNX model ({e})") from e
    if not model.HasField("graph"):
        raise FrontendError(f"{name}: not a valid ONNX model (no graph)")
    return model


class ValueTypes:
    """The types ONNX gives values: declared ones, and inferred ones once first needed
    (shape inference costs much on large graphs, and nn ops type themselves)."""

    def __init__(self, model: onnx.ModelProto):
        self.model = model
        graph = model.graph
        self.declared = _types_of([*graph.value_info, *graph.output, *graph.input])
        self.inferred: dict[str, Attribute] | InferredTypes | None = None

    def get(self, name: str) -> Attribute | None:
        if not name:
            return None
        if name in self.declared:
            return self.declared[name]
        if self.inferred is None:
            self.inferred = inferred_value_types(self.model)
        return self.inferred.get(name)


class InferredTypes:
    """The types of an inferred model (serialized), each converted when first
    asked for (most nn ops type themselves: most imports never parse it)."""

    def __init__(self, model_bytes: bytes):
        self.model_bytes = model_bytes
        self.infos: dict[str, onnx.ValueInfoProto] | None = None

    def get(self, name: str) -> Attribute | None:
        if self.infos is None:
            graph = onnx.load_from_string(self.model_bytes).graph
            self.infos = {
                i.name: i for i in [*graph.value_info, *graph.output, *graph.input]
            }
        info = self.infos.get(name)
        if info is None:
            return None
        try:
            return type_from_proto(info.type)
        except FrontendError:
            return None


def _types_of(infos: Sequence[onnx.ValueInfoProto]) -> dict[str, Attribute]:
    types: dict[str, Attribute] = {}
    for info in infos:
        try:
            t = type_from_proto(info.type)
        except FrontendError:
            continue
        if t is not None:
            types[info.name] = t
    return types


def inferred_value_types(model: onnx.ModelProto) -> dict[str, Attribute]:
    """Types of every value that ONNX shape inference knows, without copying large weights."""
    light = onnx.ModelProto()
    _copy_without_weights(model, light)
    return _inferred_types(light, _data_propagation_wanted(light))


def _inferred_types(light: onnx.ModelProto, data_prop: bool) -> dict[str, Attribute]:
    try:
        inferred = onnx.shape_inference.infer_shapes(light, data_prop=data_prop)
    except Exception:  # inference is best effort: missing types come from our rules
        inferred = light
    graph = inferred.graph
    return _types_of([*graph.value_info, *graph.output, *graph.input])


def validated_value_types(
    model: onnx.ModelProto,
    nodes: Sequence[onnx.NodeProto],
    mapped: Mapping[str, WeightBytes] | None = None,
) -> dict[str, Attribute] | InferredTypes:
    """Refuse what onnxruntime would (see onnx_validation), and return the types
    the validating inference gave: validation costs one inference. `mapped`:
    the bytes of initializers `map_initializers` mapped."""
    validation.check_opsets(model)
    light = _weight_free(model, nodes)
    serialized = validation.check_structure(light)
    validation.check_integer_divisors(model.graph, nodes, mapped or {})
    data_prop = _data_propagation_wanted(light)
    release_freed_heap()  # the checker's C++ copy of the model
    inferred = validation.infer_checked(light, data_prop, serialized)
    release_freed_heap()  # inference's
    if inferred is None:  # declared shapes contradicted: infer leniently
        return _inferred_types(light, data_prop)
    return InferredTypes(inferred)


DATA_PROPAGATION_LIMIT = 1 << 12
"""onnx's data propagation holds each 1-D value it meets as a list of dims, so
a long 1-D tensor costs it time and memory by its length: past this length,
shapes are inferred without it."""
SIZE_MAKING_OPS = frozenset(
    [
        "ConstantOfShape",
        "Expand",
        "Tile",
        "Range",
        "Resize",
        "Upsample",
        "Pad",
        "OneHot",
    ]
)


def _data_propagation_wanted(model: onnx.ModelProto) -> bool:
    """Whether to infer shapes with onnx's data propagation: when it may compute
    a value and costs little."""
    return _data_propagation_may_help(model) and _data_propagation_is_cheap(model)


def _data_propagation_may_help(model: onnx.ModelProto) -> bool:
    """Whether a node of the model has an operator with a data propagation
    function (Shape, Gather, Concat, ...): only those compute values, and
    without them inference with data propagation infers the same, for ~4 us
    more a node. Nodes of other domains, with subgraphs, or in local
    functions are taken to have one."""
    if model.functions:
        return True
    opsets = {o.domain or "": o.version for o in model.opset_import}
    opset = opsets.get("", opsets.get("ai.onnx", 1))
    kinds = {(node.domain, node.op_type) for node in model.graph.node}
    for domain, op_type in kinds:
        if domain not in ("", "ai.onnx"):
            return True
        try:
            schema = onnx.defs.get_schema(op_type, opset)
        except onnx.defs.SchemaError:
            return True  # the checker reports it
        if schema.has_data_propagation_function or any(
            a.type in _GRAPH_ATTRIBUTES for a in schema.attributes.values()
        ):
            return True
    return False


_GRAPH_ATTRIBUTES = {
    onnx.defs.OpSchema.AttrType.GRAPH,
    onnx.defs.OpSchema.AttrType.GRAPHS,
}


def _data_propagation_is_cheap(model: onnx.ModelProto) -> bool:
    """Whether no 1-D value is longer than DATA_PROPAGATION_LIMIT: those
    declared, and for graphs that make sizes from values, those inferred."""
    graph = model.graph
    if _has_long_vector([*graph.input, *graph.output, *graph.value_info]):
        return False
    if not any(node.op_type in SIZE_MAKING_OPS for node in graph.node):
        return True
    try:
        plain = onnx.shape_inference.infer_shapes(model)
    except Exception:
        return True  # the caller's inference reports it
    return not _has_long_vector(plain.graph.value_info)


def _has_long_vector(infos) -> bool:
    for info in infos:
        dims = info.type.tensor_type.shape.dim
        if len(dims) == 1 and dims[0].dim_value > DATA_PROPAGATION_LIMIT:
            return True
    return False


def _weight_free(
    model: onnx.ModelProto, nodes: Sequence[onnx.NodeProto]
) -> onnx.ModelProto:
    """What `_copy_without_weights` would make: the model itself when the copy
    would hold the same (no large or sparse initializer, nodes in order, nothing
    the copy leaves out that the checker reads); copying a graph of small nodes
    costs ~1.5 us and ~1.5 kB a node."""
    graph = model.graph
    same = (
        nodes is graph.node
        and not graph.sparse_initializer
        and not graph.metadata_props
        and not model.metadata_props
        and not model.training_info
        and all(
            math.prod(init.dims) <= SHAPE_INFERENCE_LIMIT for init in graph.initializer
        )
    )
    if same:
        return model
    light = onnx.ModelProto()
    _copy_without_weights(model, light, nodes)
    return light


def _copy_without_weights(
    model: onnx.ModelProto,
    light: onnx.ModelProto,
    nodes: Sequence[onnx.NodeProto] | None = None,
) -> None:
    """Copy all but the initializers above SHAPE_INFERENCE_LIMIT elements (and
    sparse ones), which become typed graph inputs; `nodes` in another order."""
    graph = model.graph
    light.ir_version = model.ir_version
    light.opset_import.extend(model.opset_import)
    light.functions.extend(model.functions)
    g = light.graph
    g.name = graph.name
    g.node.extend(graph.node if nodes is None else nodes)
    g.input.extend(graph.input)
    g.output.extend(graph.output)
    g.value_info.extend(graph.value_info)
    inputs = {i.name for i in graph.input}
    small = []
    for init in graph.initializer:
        if math.prod(init.dims) <= SHAPE_INFERENCE_LIMIT:  # (np.prod costs 5 us)
            small.append(init)
        elif init.name not in inputs:
            g.input.append(
                onnx.helper.make_tensor_value_info(
                    init.name, init.data_type, list(init.dims)
                )
            )
    g.initializer.extend(small)
    for sparse in graph.sparse_initializer:
        if sparse.values.name not in inputs:
            g.input.append(
                onnx.helper.make_tensor_value_info(
                    sparse.values.name, sparse.values.data_type, list(sparse.dims)
                )
            )


def _node_uses(node: onnx.NodeProto) -> list[str]:
    """Names a node reads: its inputs, then the outer values its subgraphs use."""
    if not _has_subgraphs(node):
        return [i for i in node.input if i]
    return [*(i for i in node.input if i), *outer_names(node.attribute)]


def _has_subgraphs(node: onnx.NodeProto) -> bool:
    attributes = node.attribute
    return bool(attributes) and any(a.type in _SUBGRAPH_TYPES for a in attributes)


def _any_subgraphs(nodes: Sequence[onnx.NodeProto]) -> bool:
    """Whether a node has a subgraph (one look at each node's attributes, for
    the walks over the nodes to skip theirs)."""
    return any(a.type in _SUBGRAPH_TYPES for node in nodes for a in node.attribute)


_SUBGRAPH_TYPES = {AttributeProto.GRAPH, AttributeProto.GRAPHS}


def topological_order(
    graph: onnx.GraphProto, subgraphs: bool = True
) -> Sequence[onnx.NodeProto]:
    """Nodes in an order where producers come first (ONNX requires it, some
    exporters forget): `graph.node` itself when they already are. Without
    `subgraphs` (no node has one), nodes' subgraphs are not looked for."""
    nodes = graph.node
    available = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    available.update(t.values.name for t in graph.sparse_initializer)
    available.add("")  # an absent optional input
    for n in nodes:
        if not available.issuperset(n.input) or (
            subgraphs and _has_subgraphs(n) and not available.issuperset(_node_uses(n))
        ):
            break
        available.update(n.output)
    else:
        return nodes
    produced = {out: i for i, n in enumerate(nodes) for out in n.output if out}
    waiting = [0] * len(nodes)
    users: dict[int, list[int]] = {}
    for i, n in enumerate(nodes):
        for inp in {x for x in _node_uses(n) if x in produced}:
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
    builder: ImportBuilder,
    node: onnx.NodeProto,
    inputs: list[SSAValue | None],
    outer_values: Sequence[SSAValue] = (),
    result_types: Sequence[Attribute] | None = None,
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
    if outer_values:
        props["implicit_inputs"] = IntegerAttr(len(outer_values), 64)
    present = [v for v in inputs if v is not None]
    types = result_types or [builder.output_type(n, present) for n in node.output]
    op = OpaqueOp.build(
        operands=[[*present, *outer_values]], result_types=[types], properties=props
    )
    return builder.insert(op)


def _string_tensor(attr: AttributeProto) -> bool:
    return (
        attr.type == AttributeProto.TENSOR
        and attr.t.data_type == onnx.TensorProto.STRING
    )


def _all_tensors(values: list[SSAValue | None]) -> bool:
    for value in values:
        if value is not None and not _is_tensor(value.type):
            return False
    return True


def _is_tensor(value_type: Attribute) -> bool:
    return (
        type(value_type) in _TENSOR_CLASSES
        and type(value_type.element_type) is not StringType
    )


_TENSOR_CLASSES = (TensorType, UnrankedTensorType)


def _initializer_op(
    builder: ImportBuilder, tensor: onnx.TensorProto, mapped: WeightBytes | None
) -> Operation:
    """An nn.constant, or an opaque ONNX Constant for data MLIR cannot hold (strings)."""
    if tensor.data_type != onnx.TensorProto.STRING:
        return ConstantOp.holding(dense_from_tensor(tensor, mapped), builder.block)
    value = onnx.helper.make_attribute("value", tensor)
    node = onnx.helper.make_node("Constant", [], [tensor.name])
    node.attribute.append(value)
    builder.node = node
    string_type = TensorType(StringType(), list(tensor.dims))
    return opaque_op(builder, node, [], result_types=[string_type])


def _sparse_initializer_op(
    builder: ImportBuilder, sparse: onnx.SparseTensorProto
) -> Operation:
    node = onnx.helper.make_node("Constant", [], [sparse.values.name])
    node.attribute.append(onnx.helper.make_attribute("sparse_value", sparse))
    builder.node = node
    element = onnx_element_type(sparse.values.data_type)
    dense_type = TensorType(element, list(sparse.dims))
    return opaque_op(builder, node, [], result_types=[dense_type])


def import_model(
    model: onnx.ModelProto,
    allow_opaque: bool = True,
    verify: bool = False,
    validate: bool = True,
    base_dir: str | os.PathLike | None = None,
) -> ModuleOp:
    """Convert a model; unknown operators become nn.opaque (or, if not allowed, one error listing all).

    Tensors stored in external files are first read into `model` from
    `base_dir` (only from inside it), the large initializers mapped instead
    (their constants hold the file's bytes: `graph_opt.weights`); without
    `base_dir` they are refused.
    With `validate` (the default), first refuse, with a FrontendError naming the
    node and the reason, a model onnxruntime would refuse to load (see
    `onnx_validation`). With `verify`, check the module as `module.verify()`
    would, at a fraction of its cost on large graphs (see `_verify_ops`)."""
    mapped = map_initializers(model.graph, base_dir, "ONNX model")
    read_external_data(external_tensors(model), base_dir, "ONNX model")
    with collector_paused():
        return _import_model(model, allow_opaque, verify, validate, mapped)


def _import_model(
    model: onnx.ModelProto,
    allow_opaque: bool,
    verify: bool,
    validate: bool,
    mapped: Mapping[str, WeightBytes],
) -> ModuleOp:
    load_mappings()
    graph = model.graph
    opsets = {o.domain or "": o.version for o in model.opset_import}
    opset = opsets.get("", opsets.get("ai.onnx", 1))
    subgraphs = _any_subgraphs(graph.node)
    nodes = topological_order(graph, subgraphs)
    value_types = ValueTypes(model)
    if validate:
        value_types.inferred = validated_value_types(model, nodes, mapped)
    initializers = {t.name: t for t in graph.initializer}
    graph_inputs = [i for i in graph.input if i.name not in initializers]
    arg_types = []
    for i in graph_inputs:
        t = type_from_proto(i.type)
        if t is None:
            raise FrontendError(f"graph input '{i.name}' has no type")
        arg_types.append(t)
    block = Block(arg_types=arg_types)
    values: dict[str, SSAValue] = {
        i.name: arg for i, arg in zip(graph_inputs, block.args)
    }
    for i, arg in zip(graph_inputs, block.args):
        set_name_hint(arg, i.name)
    builder = ImportBuilder(block, value_types, opset)
    builder.subgraphs = subgraphs
    for tensor in graph.initializer:
        name = tensor.name
        _bind_one(_initializer_op(builder, tensor, mapped.get(name)), name, values)
    for sparse in graph.sparse_initializer:
        _bind(_sparse_initializer_op(builder, sparse), [sparse.values.name], values)
    builder.initializer_ops = len(graph.initializer) + len(graph.sparse_initializer)
    for node in chunked_progress(nodes, len(nodes), "import"):
        _import_node(builder, node, values)
    outputs = []
    for o in graph.output:
        if o.name not in values:
            raise FrontendError(f"graph output '{o.name}' is not computed by the graph")
        outputs.append(values[o.name])
    block.add_op(func.ReturnOp(*outputs))
    if not allow_opaque:
        _reject_opaque(block)
    function = func.FuncOp(
        "main",
        FunctionType.from_lists(arg_types, [v.type for v in outputs]),
        Region(block),
        arg_attrs=name_attrs(
            [i.name for i in graph_inputs], [dim_params(i) for i in graph_inputs]
        ),
        res_attrs=name_attrs(
            [o.name for o in graph.output], [dim_params(o) for o in graph.output]
        ),
    )
    if verify:
        _verify_ops(block, builder)
    module = ModuleOp([function])
    module.attributes[OPSET_ATTR] = DictionaryAttr(
        {d: IntegerAttr(v, 64) for d, v in opsets.items()}
    )
    module.attributes[IR_VERSION_ATTR] = IntegerAttr(model.ir_version, 64)
    if model.functions:
        module.attributes[FUNCTIONS_ATTR] = ArrayAttr(
            [BytesAttr(f.SerializeToString()) for f in model.functions]
        )
    if verify:
        module.verify(verify_nested_ops=False)
    return module


def _import_node(
    builder: ImportBuilder, node: onnx.NodeProto, values: dict[str, SSAValue]
) -> None:
    builder.node = node
    try:
        inputs = [values[name] if name else None for name in node.input]
        outer = (
            [values[name] for name in outer_names(node.attribute)]
            if builder.subgraphs and _has_subgraphs(node)
            else None
        )
    except KeyError as e:
        raise FrontendError(
            f"node '{builder.node_label()}' ({node.op_type}) uses undefined value '{e.args[0]}'"
        ) from None
    op = None
    import_node = IMPORTERS.get(node.op_type)
    if (
        import_node is not None
        and not outer
        and node.domain in _DEFAULT_DOMAINS
        and _all_tensors(inputs)
    ):
        op = import_node(builder, node, inputs)
    if op is None:
        op = opaque_op(builder, node, inputs, outer or ())
    names = node.output
    if len(names) == 1 and len(op.results) == 1:
        _bind_one(op, names[0], values)
        return
    names = list(names)
    if len(names) != len(op.results):
        required = len(names)
        while required and not names[required - 1]:
            required -= 1  # trailing optional outputs left empty
        if not required <= len(op.results) <= len(names):
            raise FrontendError(
                f"node '{builder.node_label()}' ({node.op_type}) has an unexpected number of outputs"
            )
        names = names[: len(op.results)]
    _bind(op, names, values)


_DEFAULT_DOMAINS = ("", "ai.onnx")


def _bind_one(op: Operation, name: str, values: dict[str, SSAValue]) -> None:
    """`_bind(op, [name], values)` for an op of one result."""
    (result,) = op.results
    if name:
        values[name] = result
        if set_name_hint(result, name):
            return
    op.location = name_location([name])


def _bind(op: Operation, names: list[str], values: dict[str, SSAValue]) -> None:
    """Record the ONNX names of an op's results as SSA name hints, and as the op's
    location where a hint cannot hold the name (or a result is unnamed)."""
    hints_hold_names = True
    for name, result in zip(names, op.results):
        if name:
            values[name] = result
            hints_hold_names = set_name_hint(result, name) and hints_hold_names
        else:
            hints_hold_names = False
    if not hints_hold_names:
        op.location = name_location(names)


def _verify_ops(block: Block, builder: ImportBuilder) -> None:
    """Verify every op as `module.verify()` would, so that the module need not be
    verified again, at a fraction of the cost on large graphs: initializers are
    valid by construction, and so is the function (its type is its block's
    argument types and returned values' types, and every op reads values of its
    block: its isolation check walks every operand); an op that its type rule
    typed, from the operands it still has, is checked but for that rule; and
    IRDL's checks, functions of the op's types and attributes, run once per
    distinct signature."""
    verifier = SignatureVerifier()
    ops = iter(block.ops)
    for op in islice(ops, builder.initializer_ops):
        if type(op) is not ConstantOp:  # (an initializer's constant is valid)
            _verify_op(op, builder.typed_by_rule, verifier)
    for op in ops:
        _verify_op(op, builder.typed_by_rule, verifier)


def _verify_op(
    op: Operation,
    typed_by_rule: Mapping[Operation, tuple[SSAValue, ...]],
    verifier: SignatureVerifier,
) -> None:
    if not signature_verifiable(type(op)):
        op.verify()
        return
    try:
        verifier.verify_irdl(op)
        if typed_by_rule.get(op) == operand_values(op):
            op.verify_properties()
        else:
            NNOperation.verify_(op)
    except VerifyException as e:
        op.emit_error(f"Operation does not verify: {e}", e)


def _reject_opaque(block: Block) -> None:
    kept = Counter(
        f"{op.domain.data}.{op.op_type.data}" if op.domain else op.op_type.data
        for op in block.ops
        if isinstance(op, OpaqueOp)
    )
    if kept:
        listing = ", ".join(f"{t} ({c})" for t, c in sorted(kept.items()))
        raise FrontendError(f"unsupported ONNX operators: {listing}")
