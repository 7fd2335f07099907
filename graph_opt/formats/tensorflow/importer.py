"""TensorFlow GraphDef (frozen inference graph) -> a module of the nn dialect."""

from __future__ import annotations

import heapq
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

import numpy as np
from google.protobuf import text_format
from google.protobuf.message import DecodeError
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    BytesAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    UnrankedTensorType,
    f32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.effects import (
    CONTROL_INPUTS_ATTR,
    DEVICE_ATTR,
    EFFECT_OPS,
    control_inputs_attr,
)
from graph_opt.dialects.nn.base import NNOperation
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.names import name_attrs, name_location, set_name_hint
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.shapes import DYN
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import attrs, op_defs
from graph_opt.formats.tensorflow.attr_support import (
    REFUSED_OPS,
    refused_attrs,
    refused_values,
)
from graph_opt.formats.tensorflow.dilated_conv import fuse_dilated_convs
from graph_opt.formats.tensorflow.effects import (
    DT_STRING,
    EffectfulFunctions,
    after_effects,
    string_valued,
)
from graph_opt.formats.tensorflow.functions import ARG_OP, Body, library_bodies
from graph_opt.formats.tensorflow.mappings.state import (
    REF_INPUT_OPS,
    STATEFUL_OPS,
    initial_values,
    read_ref_variables,
)
from graph_opt.formats.tensorflow.op_table import IMPORTERS, load_mappings
from graph_opt.formats.tensorflow.placeholders import feed_defaults
from graph_opt.formats.tensorflow.schema import GraphDef, NodeDef
from graph_opt.formats.tensorflow.tensors import shape_dims, tensor_type
from graph_opt.formats.tensorflow.validation import validate_graph_def
from graph_opt.passes.common.constant_eval import computed_constant
from graph_opt.remarks import warn
from graph_opt.weights import WeightBytes

OPAQUE_DOMAIN = "tf"
_REQUIRED = object()


class Declined(Exception):
    """An importer cannot map this node; the message says why."""


@dataclass(frozen=True)
class TensorRef:
    """`node:index`, one output of a node."""

    node: str
    index: int

    @property
    def label(self) -> str:
        return self.node if self.index == 0 else f"{self.node}:{self.index}"


def parse_input(text: str) -> tuple[TensorRef, bool]:
    """A NodeDef input (`node`, `node:1` or the control input `^node`) and whether it is control."""
    if text.startswith("^"):
        return TensorRef(text[1:], 0), True
    return TensorRef(*op_defs.source(text)), False


@dataclass
class ImportContext:
    """What every body of one import shares: the function library (v1 control
    flow adds the bodies it builds) and whether unknown ops become nn.opaque."""

    library: dict[str, Body]
    allow_opaque: bool
    initial_values: Mapping[str, object] = field(default_factory=dict)
    """The TensorProto each variable's initializer assigns, by variable node."""
    unsized_lists: dict[SSAValue, np.ndarray | None] = field(default_factory=dict)
    """TensorLists (and TensorArrays) made with unknown element dims (sized 1
    for now), and which dims those are (None: the rank is unknown too, the
    list is 1-D for now): their loop gives them the size its items have."""
    kept_opaque: list[str] = field(default_factory=list)
    """`op 'node' (why)` for each mapped node declined and kept as nn.opaque."""


class ImportBuilder:
    """What a TensorFlow op importer sees: the node and helpers to build nn ops."""

    def __init__(self, block: Block, context: ImportContext | None = None):
        self.builder = Builder(InsertPoint.at_end(block))
        self.node = NodeDef()
        self.context = context or ImportContext({}, allow_opaque=False)
        self.mapped: Mapping[str, WeightBytes] = {}
        """The mapped weights of the graph's marked Consts (`MAPPED_ATTR`), by node."""
        self.control_effects: list[str] = []
        """The node's control inputs that run after side effects."""
        self.used_outputs = 1
        """How many of the node's outputs the graph reads (the highest index + 1)."""
        self.state_nodes: set[str] = set()
        """The nodes imported so far that change state, or group such changes."""

    def import_function(
        self, name: str, args: Sequence[SSAValue], block: Block
    ) -> list[SSAValue]:
        """Import the library function `name` at the end of `block`, its arguments
        bound to `args`; return its results."""
        body = self.context.library.get(name)
        if body is None:
            raise self.error(f"function '{name}' is not in the graph's library")
        if len(args) != len(body.args):
            raise self.error(
                f"function '{name}' takes {len(body.args)} arguments, given {len(args)}"
            )
        try:
            return import_body(body, args, block, self.context)
        except FrontendError as e:
            raise self.error(f"in function '{name}': {e}") from e

    def create(
        self,
        op_class: type[NNOperation],
        operands: Sequence[SSAValue],
        props: Mapping[str, Attribute] | None = None,
    ) -> Operation:
        """Insert an nn op typed by its rule (unranked when the rule cannot tell)."""
        props = dict(props or {})
        try:
            types = op_class.infer_result_types(list(operands), props)
        except VerifyException as e:
            raise self.error(str(e)) from e
        if types is None:
            types = [self.unranked(operands)]
        return self.builder.insert(
            op_class.create_inferred(list(operands), props, types)
        )

    def constant(self, array: np.ndarray) -> SSAValue:
        return self.builder.insert(ConstantOp.from_array(array)).results[0]

    @staticmethod
    def constant_value(value: SSAValue) -> np.ndarray | None:
        return constant_value(value)

    def constant_input(self, value: SSAValue, what: str) -> np.ndarray:
        """A constant, or a small value computed from constants and static shapes."""
        array = computed_constant(value)
        if array is None:
            self.decline(f"{what} must be a constant")
        return array

    def attr(self, name: str, default: object = _REQUIRED):
        """A node attribute as a Python value (strings decoded)."""
        if name not in self.node.attr:
            if default is _REQUIRED:
                self.decline(f"attribute '{name}' is missing")
            return default
        return attrs.python_value(self.node.attr[name])

    @staticmethod
    def unranked(operands: Sequence[SSAValue]) -> Attribute:
        element = getattr(operands[0].type, "element_type", f32) if operands else f32
        return UnrankedTensorType(element)

    def decline(self, reason: str) -> NoReturn:
        raise Declined(reason)

    def error(self, message: str) -> FrontendError:
        return FrontendError(f"node '{self.node.name}' ({self.node.op}): {message}")


def load_graph_def(path: str) -> GraphDef:
    """Read a .pb (binary) or .pbtxt (text) GraphDef, or raise a one-line FrontendError."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FrontendError(f"{path}: cannot read the graph ({e})") from e
    return graph_def_from_bytes(data, path, text=path.endswith(".pbtxt"))


def graph_def_from_bytes(
    data: bytes, name: str = "<input>", text: bool = False
) -> GraphDef:
    graph = GraphDef()
    try:
        if text:
            # fields newer than the schema (e.g. experimental_type) are skipped, as in binary
            text_format.Parse(data.decode("utf-8"), graph, allow_unknown_field=True)
        else:
            graph.ParseFromString(data)
    except (DecodeError, text_format.ParseError, UnicodeDecodeError) as e:
        detail = " ".join(str(e).split())
        raise FrontendError(
            f"{name}: not a valid TensorFlow GraphDef ({detail})"
        ) from e
    if not graph.node:
        raise FrontendError(f"{name}: not a valid TensorFlow GraphDef (no nodes)")
    return graph


class _Graph:
    """The nodes of a GraphDef by name, with their data and control inputs."""

    def __init__(self, nodes: Sequence[NodeDef], library: dict[str, Body]):
        self.nodes: dict[str, NodeDef] = {}
        self.index: dict[str, int] = {}
        for i, node in enumerate(nodes):
            if not node.name:
                raise FrontendError(f"node {i} ({node.op or 'no op'}) has no name")
            if node.name in self.nodes:
                raise FrontendError(f"the graph has two nodes named '{node.name}'")
            self.nodes[node.name] = node
            self.index[node.name] = i
        self.data: dict[str, list[TensorRef]] = {}
        self.control: dict[str, list[str]] = {}
        self.outputs_used: Counter[str] = Counter()
        """One more than the highest output index read of each node."""
        for node in nodes:
            data, control = [], []
            for text in node.input:
                ref, is_control = parse_input(text)
                if ref.node not in self.nodes:
                    raise FrontendError(
                        f"node '{node.name}' ({node.op}) uses undefined node '{ref.node}'"
                    )
                if is_control:
                    control.append(ref.node)
                elif control:  # TensorFlow's importer refuses it too
                    raise FrontendError(
                        f"node '{node.name}' ({node.op}) has data input '{text}' "
                        "after a control input"
                    )
                else:
                    data.append(ref)
                    self.outputs_used[ref.node] = max(
                        self.outputs_used[ref.node], ref.index + 1
                    )
            self.data[node.name] = data
            self.control[node.name] = control
        self.is_effect = EffectfulFunctions(library)
        self.after_effects = after_effects(self.nodes, self.inputs, self.is_effect)
        self._effects: dict[str, list[str]] = {}

    def inputs(self, name: str) -> list[str]:
        return [r.node for r in self.data[name]] + self.control[name]

    def waited_effects(self, name: str) -> list[str]:
        """The side effects the node's control inputs wait on: each control
        input that is an effect, else the nearest effects it runs after (an
        Identity after an assert names the assert, or the If holding it).
        Passes remove no effect, so these names stay valid; an intermediate
        node's name would not (it is pure, and goes)."""
        found: dict[str, None] = {}
        for source in self.control[name]:
            if source in self.after_effects:
                found.update(dict.fromkeys(self._nearest_effects(source)))
        return list(found)

    def _nearest_effects(self, start: str) -> list[str]:
        if start not in self._effects:
            found: dict[str, None] = {}
            seen, stack = {start}, [start]
            while stack:
                name = stack.pop()
                if name in self._effects and name != start:
                    found.update(dict.fromkeys(self._effects[name]))
                elif self.is_effect(self.nodes[name]):
                    found[name] = None
                else:
                    for source in self.inputs(name):
                        if source in self.after_effects and source not in seen:
                            seen.add(source)
                            stack.append(source)
            self._effects[start] = list(found)
        return self._effects[start]

    def sinks(self) -> list[TensorRef]:
        """Output 0 of every node whose outputs no node reads, through data or
        control edges (placeholders, NoOps and side effects aside)."""
        control_read = {c for controls in self.control.values() for c in controls}
        return [
            TensorRef(name, 0)
            for name, node in self.nodes.items()
            if name not in self.outputs_used
            and name not in control_read
            and node.op not in ("Placeholder", "NoOp", ARG_OP, *EFFECT_OPS)
        ]

    def needed(self, outputs: Sequence[TensorRef]) -> list[str]:
        """The nodes the outputs depend on through data edges, producers first.

        Control inputs among them order the result too (no recursion: Kahn's algorithm)."""
        needed = {ref.node for ref in outputs}
        stack = list(needed)
        while stack:
            name = stack.pop()
            sources = [ref.node for ref in self.data[name]]
            sources += [c for c in self.control[name] if c in self.after_effects]
            for source in sources:
                if source not in needed:
                    needed.add(source)
                    stack.append(source)
        waiting = dict.fromkeys(needed, 0)
        users: dict[str, list[str]] = {}
        for name in needed:
            producers = {r.node for r in self.data[name]} | set(self.control[name])
            for producer in producers & needed:
                waiting[name] += 1
                users.setdefault(producer, []).append(name)
        ready = [(self.index[n], n) for n, count in waiting.items() if count == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            _, name = heapq.heappop(ready)
            order.append(name)
            for user in users.get(name, []):
                waiting[user] -= 1
                if waiting[user] == 0:
                    heapq.heappush(ready, (self.index[user], user))
        if len(order) != len(needed):
            stuck = sorted(n for n, count in waiting.items() if count)[:3]
            raise FrontendError(
                f"the graph has a cycle through {', '.join(stuck)} outside any well-formed v1 while loop"
            )
        return order


def _output_refs(graph: _Graph, outputs: Sequence[str] | None) -> list[TensorRef]:
    if not outputs:
        refs = graph.sinks()
        if not refs:
            raise FrontendError("the graph has no outputs: name them with --outputs")
        return refs
    refs = [parse_input(name)[0] for name in outputs]
    for ref in refs:
        if ref.node not in graph.nodes:
            raise FrontendError(f"output '{ref.label}' is not a node of the graph")
    return refs


def _placeholder_type(node: NodeDef, override: Sequence[int] | None) -> Attribute:
    declared = attrs.python_value(node.attr["shape"]) if "shape" in node.attr else None
    if override is not None:
        if declared is not None and (
            len(declared) != len(override)
            or any(d not in (DYN, o) for d, o in zip(declared, override))
        ):
            raise FrontendError(
                f"input shape {list(override)} of placeholder '{node.name}' contradicts its declared shape {declared}"
            )
        declared = list(override)
    if declared is None:
        raise FrontendError(
            f"placeholder '{node.name}' has no known shape: give one with --input-shape {node.name}=1,224,224,3"
        )
    if "dtype" not in node.attr:
        raise FrontendError(f"placeholder '{node.name}' has no dtype")
    return tensor_type(node.attr["dtype"].type, declared)


def _opaque(
    b: ImportBuilder,
    node: NodeDef,
    inputs: list[SSAValue],
    count: int,
    types: list[Attribute] | None = None,
) -> Operation:
    simple, complex_attrs = {}, NodeDef()
    for key in sorted(node.attr):
        value = node.attr[key]
        converted = attrs.mlir_attr(value)
        if converted is None:
            complex_attrs.attr[key].CopyFrom(value)
        else:
            simple[key] = converted
    props: dict[str, Attribute] = {
        "op_type": StringAttr(node.op),
        "domain": StringAttr(OPAQUE_DOMAIN),
    }
    if simple:
        props["attrs"] = DictionaryAttr(simple)
    if complex_attrs.attr:
        props["serialized_attrs"] = BytesAttr(complex_attrs.SerializeToString())
    if types is None:
        types = _declared_output_types(node) or [b.unranked(inputs)] * max(count, 1)
    op = OpaqueOp.build(operands=[inputs], result_types=[types], properties=props)
    return b.builder.insert(op)


def _declared_output_types(node: NodeDef) -> list[Attribute] | None:
    """The types `_output_shapes` and the `T`/`dtype` attribute give, if both are present."""
    dtype_attr = node.attr.get("T") or node.attr.get("dtype")
    if "_output_shapes" not in node.attr or dtype_attr is None:
        return None
    try:
        return [
            tensor_type(dtype_attr.type, shape_dims(s))
            for s in node.attr["_output_shapes"].list.shape
        ]
    except FrontendError:
        return None


VARIABLE_OPS = frozenset(["VariableV2", "Variable", "VarHandleOp"])
"""Ops holding a variable, whose values a checkpoint gives (--input-checkpoint)."""


def _check_supported(graph: _Graph, order: list[str]) -> None:
    """Refuse, in one line, every unsupported op and attribute value."""
    unsupported = Counter(
        graph.nodes[n].op
        for n in order
        if graph.nodes[n].op not in IMPORTERS
        and graph.nodes[n].op not in ("Placeholder", ARG_OP, *EFFECT_OPS)
        and not string_valued(graph.nodes[n])
    )
    problems = []
    if unsupported:
        listing = ", ".join(
            f"{op} ({count}: {REFUSED_OPS[op]})"
            if op in REFUSED_OPS
            else f"{op} ({count})"
            for op, count in sorted(unsupported.items(), key=lambda e: (-e[1], e[0]))
        )
        problems.append(f"unsupported TensorFlow ops: {listing}")
    nodes = [graph.nodes[n] for n in order]
    if unsupported and any(n.op in VARIABLE_OPS for n in nodes):
        problems.append(
            "the graph has variables: give their values with "
            "--input-checkpoint=PREFIX (api.load(checkpoint=...))"
        )
    refused = refused_values(
        n for n in nodes if n.op in IMPORTERS and not string_valued(n)
    )
    if refused:
        problems.append("unsupported attribute values: " + ", ".join(refused))
    if problems:
        raise FrontendError("; ".join(problems))


def import_graph_def(
    graph_def: GraphDef,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    outputs: Sequence[str] | None = None,
    allow_opaque: bool = False,
    validate: bool = True,
    checkpoint: str | os.PathLike | None = None,
    mapped: Mapping[str, WeightBytes] | None = None,
) -> ModuleOp:
    """Convert a frozen GraphDef: placeholders become arguments, the named outputs
    (default: the nodes nothing reads) the results. Unknown ops are an error
    listing them all, or nn.opaque ops of domain "tf" if `allow_opaque`.
    Functional and v1 control flow become scf regions (see `control_flow`).
    A node TensorFlow's importer would refuse is an error unless not `validate`.
    With a `checkpoint` prefix, the graph's variables take its values first
    (see `checkpoint_freeze`). `mapped`: the weights of the graph's Consts
    marked as held apart (a SavedModel's large variables), by node name."""
    import graph_opt.formats.tensorflow.control_flow  # noqa: F401 (If, While, calls)
    from graph_opt.formats.tensorflow.control_flow_v1 import functionalize

    if validate:
        validate_graph_def(graph_def)
    if checkpoint is not None:
        from graph_opt.formats.tensorflow.checkpoint_freeze import (
            freeze_with_checkpoint,
        )

        mapped = dict(mapped or {})
        graph_def = freeze_with_checkpoint(graph_def, checkpoint, mapped)
    load_mappings()
    context = ImportContext(
        library_bodies(graph_def), allow_opaque, initial_values(graph_def.node)
    )
    input_shapes = dict(input_shapes or {})
    nodes = feed_defaults(
        functionalize(list(graph_def.node), context.library), input_shapes
    )
    graph = _Graph(nodes, context.library)
    for name in input_shapes:
        if name not in graph.nodes or graph.nodes[name].op != "Placeholder":
            placeholders = [
                n for n, node in graph.nodes.items() if node.op == "Placeholder"
            ]
            raise FrontendError(
                f"input shape given for '{name}', which is not a placeholder "
                f"(placeholders: {', '.join(placeholders) or 'none'})"
            )
    output_refs = _output_refs(graph, outputs)
    fused = fuse_dilated_convs(nodes)  # after the default outputs are known
    if fused is not nodes:
        graph = _Graph(fused, context.library)
    order = graph.needed(output_refs)
    if not allow_opaque:
        _check_supported(graph, order)
    placeholders = [graph.nodes[n] for n in order if graph.nodes[n].op == "Placeholder"]
    arg_types = [_placeholder_type(p, input_shapes.get(p.name)) for p in placeholders]
    block = Block(arg_types=arg_types)
    values: dict[str, list[SSAValue]] = {}
    for node, arg in zip(placeholders, block.args):
        values[node.name] = [arg]
        set_name_hint(arg, node.name)
    builder = ImportBuilder(block, context)
    builder.mapped = mapped or {}
    _import_nodes(builder, graph, order, values, [])
    if context.kept_opaque:
        warn(
            f"{len(context.kept_opaque)} mapped TensorFlow nodes kept as nn.opaque: "
            + ", ".join(context.kept_opaque)
        )
    # a fetched node without outputs (a training step's NoOp, an enqueue) is a
    # target: it runs, and returns nothing
    output_refs = [r for r in output_refs if values[r.node] or r.index > 0]
    results = [_lookup(graph, values, None, ref) for ref in output_refs]
    block.add_op(func.ReturnOp(*results))
    function = func.FuncOp(
        "main",
        FunctionType.from_lists(arg_types, [v.type for v in results]),
        Region(block),
        arg_attrs=name_attrs([p.name for p in placeholders]),
        res_attrs=name_attrs([ref.label for ref in output_refs]),
    )
    return ModuleOp([function])


def import_body(
    body: Body, args: Sequence[SSAValue], block: Block, context: ImportContext
) -> list[SSAValue]:
    """Import a function body at the end of `block`, its arguments bound to `args`."""
    from graph_opt.formats.tensorflow.control_flow_v1 import functionalize

    graph = _Graph(
        fuse_dilated_convs(functionalize(body.nodes, context.library)),
        context.library,
    )
    output_refs = [parse_input(text)[0] for text in body.outputs]
    for ref in output_refs:
        if ref.node not in graph.nodes:
            raise FrontendError(f"the function returns undefined node '{ref.node}'")
    order = graph.needed(output_refs)
    if not context.allow_opaque:
        _check_supported(graph, order)
    values = {name: [arg] for name, arg in zip(body.args, args)}
    return _import_nodes(
        ImportBuilder(block, context), graph, order, values, output_refs
    )


def _import_nodes(
    b: ImportBuilder,
    graph: _Graph,
    order: list[str],
    values: dict[str, list[SSAValue]],
    output_refs: list[TensorRef],
) -> list[SSAValue]:
    """Import the nodes in order (those in `values` are bound already); return the outputs."""
    for name in order:
        if name in values:
            continue
        node = graph.nodes[name]
        b.node = node
        inputs = [_lookup(graph, values, node, ref) for ref in graph.data[name]]
        effects = graph.waited_effects(name)
        b.control_effects = effects
        last = b.builder.insertion_point.block.last_op
        if node.op not in REF_INPUT_OPS:
            inputs = read_ref_variables(b, inputs)
        if node.op in STATEFUL_OPS:
            b.state_nodes.add(name)
        values[name] = _import_node(
            b, node, inputs, graph.outputs_used[name], b.context.allow_opaque
        )
        if effects or node.device:
            _mark_ops_after(b, last, node.device, effects)
    return [_lookup(graph, values, None, ref) for ref in output_refs]


def _import_node(
    b: ImportBuilder,
    node: NodeDef,
    inputs: list[SSAValue],
    used: int,
    allow_opaque: bool,
) -> list[SSAValue]:
    last = b.builder.insertion_point.block.last_op
    try:
        if node.op in EFFECT_OPS or string_valued(node):
            return _effect(b, node, inputs)
        if node.op not in IMPORTERS:
            raise Declined("unsupported op")
        refused = refused_attrs(node)
        if refused:
            raise Declined("; ".join(refused))
        b.used_outputs = used
        produced = IMPORTERS[node.op](b, node, inputs)
    except Declined as e:
        if not allow_opaque:
            raise b.error(str(e)) from e
        if node.op in IMPORTERS:
            b.context.kept_opaque.append(f"{node.op} '{node.name}' ({e})")
        _erase_after(b, last)
        produced = _opaque(b, node, inputs, used)
    results = list(produced.results if isinstance(produced, Operation) else produced)
    for i, value in enumerate(results):
        set_name_hint(value, TensorRef(node.name, i).label)
    block = b.builder.insertion_point.block
    op = last.next_op if last is not None else block.first_op
    while op is not None:
        if op.results and all(r in results for r in op.results):
            op.location = name_location(
                [TensorRef(node.name, results.index(r)).label for r in op.results]
            )
        elif not op.results and not results:  # an effect: the node itself
            op.location = name_location([node.name])
        else:
            op.location = name_location([f"{node.name}/{op.name.removeprefix('nn.')}"])
        op = op.next_op
    return results


def _effect(b: ImportBuilder, node: NodeDef, inputs: list[SSAValue]) -> list[SSAValue]:
    """A side-effecting op: an nn.opaque without results (Print forwards its
    input); or a string it prints, an nn.opaque with a string result."""
    if string_valued(node):
        shape = node.attr["value"].tensor.tensor_shape if node.op == "Const" else None
        dims = [] if shape is None else shape_dims(shape)
        op = _opaque(b, node, inputs, 1, types=[tensor_type(DT_STRING, dims)])
        op.location = name_location([node.name])
        return list(op.results)
    op = _opaque(b, node, inputs, 0, types=[])
    op.location = name_location([node.name])
    return [inputs[0]] if node.op == "Print" else []


def _mark_ops_after(
    b: ImportBuilder, last: Operation | None, device: str, effects: list[str]
) -> None:
    """Keep the node's device and the side effects it waits on, on its ops."""
    block = b.builder.insertion_point.block
    op = last.next_op if last is not None else block.first_op
    while op is not None:
        if device:
            op.attributes[DEVICE_ATTR] = StringAttr(device)
        if effects:
            op.attributes[CONTROL_INPUTS_ATTR] = control_inputs_attr(effects)
        op = op.next_op


def _erase_after(b: ImportBuilder, last: Operation | None) -> None:
    """Drop the ops a declining importer had already built."""
    block = b.builder.insertion_point.block
    while block.last_op is not None and block.last_op is not last:
        block.last_op.erase()


def _lookup(
    graph: _Graph,
    values: dict[str, list[SSAValue]],
    user: NodeDef | None,
    ref: TensorRef,
) -> SSAValue:
    produced = values[ref.node]
    if ref.index < len(produced):
        return produced[ref.index]
    producer = graph.nodes[ref.node]
    reader = f"node '{user.name}' ({user.op}) reads" if user else "the graph returns"
    raise FrontendError(
        f"{reader} output {ref.index} of '{ref.node}' ({producer.op}), which the import does not provide"
    )
