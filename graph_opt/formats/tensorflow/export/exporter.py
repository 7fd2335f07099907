"""A module of the nn and tf_state dialects -> a TensorFlow GraphDef, without
TensorFlow (`schema` has the messages).

Arguments become Placeholders; each op becomes the nodes of `export_ops`,
named after the TensorFlow node it came from (its location) and otherwise
after the op; results that no node of their name produces get an Identity of
that name. Control inputs come back from `tf.control_inputs`, and ops on one
variable or queue are ordered as in the block (control edges where no data
edge orders them). A variable's initial value is assigned by
`<variable>/Assign`, grouped by the NoOp `init`. Loops and branches become
functional While/If nodes with functions in the library
(`export_control_flow`). An op without a TensorFlow form, at any depth, is an
error naming every such op.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from graph_opt.dialects.effects import CONTROL_INPUTS_ATTR, DEVICE_ATTR
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.names import (
    argument_names,
    location_names,
    op_result_names,
    result_names,
    unused_name,
)
from graph_opt.dialects.nn.types import StringType
from graph_opt.entry import entry_function
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.registration import registrar
from graph_opt.formats.tensorflow.schema import DATA_TYPES, GraphDef, NodeDef
from graph_opt.formats.tensorflow.tensors import NUMPY_DTYPES, set_splat_value
from graph_opt.remarks import warn

DT_OF_NUMPY = {dtype: number for number, dtype in NUMPY_DTYPES.items()}
_OUTPUT_SUFFIX = re.compile(r":\d+$")
PRODUCER_VERSION = 1882  # a GraphDef version of TensorFlow 2.x


class DataType(int):
    """A DataType attribute value (told apart from an int attribute)."""


class Function(str):
    """A function attribute value: the name of a function of the library."""


def dtype_of(value: SSAValue | Attribute) -> DataType:
    """The TensorFlow DataType of a value's (or type's) elements."""
    t = value.type if isinstance(value, SSAValue) else value
    element = getattr(t, "element_type", t)
    if isinstance(element, StringType):
        return DataType(DATA_TYPES["DT_STRING"])
    return DataType(DT_OF_NUMPY[numpy_dtype(element)])


def tensor_proto(array: np.ndarray, proto) -> None:
    """Fill a TensorProto with a numpy array (little-endian tensor_content; one
    typed value for a broadcast splat)."""
    array = np.asarray(array)
    proto.dtype = DT_OF_NUMPY[array.dtype]
    for size in array.shape:
        proto.tensor_shape.dim.add().size = size
    if array.size > 1 and not any(array.strides):  # a splat (to_numpy broadcasts it)
        set_splat_value(proto, array[(0,) * array.ndim])
        return
    little = np.ascontiguousarray(array, array.dtype.newbyteorder("<"))
    proto.tensor_content = little.tobytes()  # (a view as it is: one copy, the bytes)


def set_attr(attr, value) -> None:
    """Fill an AttrValue from a Python value: bool, int, float, str, DataType,
    Function, numpy array (a tensor), ("shape", dims), or a list of ints,
    DataTypes or shapes."""
    if isinstance(value, DataType):
        attr.type = int(value)
    elif isinstance(value, Function):
        attr.func.name = str(value)
    elif isinstance(value, bool):
        attr.b = value
    elif isinstance(value, int):
        attr.i = value
    elif isinstance(value, float):
        attr.f = value
    elif isinstance(value, str):
        attr.s = value.encode()
    elif isinstance(value, np.ndarray):
        tensor_proto(value, attr.tensor)
    elif isinstance(value, tuple) and value and value[0] == "shape":
        set_shape(attr.shape, value[1])
    elif value and all(isinstance(v, DataType) for v in value):
        attr.list.type.extend(int(v) for v in value)
    elif value and all(isinstance(v, tuple) for v in value):
        for _, dims in value:
            set_shape(attr.list.shape.add(), dims)
    elif all(isinstance(v, int) for v in value):
        attr.list.i.extend(int(v) for v in value)
        attr.list.SetInParent()
    else:
        raise TypeError(f"no TensorFlow attribute for {value!r}")


def set_shape(shape_proto, dims: Sequence[int] | None) -> None:
    """Fill a TensorShapeProto (`dims` None: unknown rank)."""
    if dims is None:
        shape_proto.unknown_rank = True
        return
    for size in dims:
        shape_proto.dim.add().size = size
    shape_proto.SetInParent()


def shape_of(value: SSAValue) -> tuple[str, list[int] | None]:
    t = value.type
    return ("shape", list(t.get_shape()) if isinstance(t, TensorType) else None)


class GraphExporter:
    """The GraphDef being written: unique node names and each value's tensor name."""

    def __init__(self, parent: GraphExporter | None = None):
        """A GraphDef, or with `parent` the nodes of a function of its library."""
        self.graph = GraphDef()
        self.graph.versions.producer = PRODUCER_VERSION
        self.library = self.graph.library if parent is None else parent.library
        self.function_names: set[str] = (
            set() if parent is None else parent.function_names
        )
        self.tensors: dict[SSAValue, str] = {}
        self.taken: set[str] = set()
        self.nodes_of: dict[Operation, list[NodeDef]] = {}
        self.source_names: dict[str, str] = {}
        """Exported node name of each TensorFlow name an op's location records."""
        self.op: Operation | None = None
        self.initializers: list[str] = []
        self.held: list | None = None
        """Given a list, the graph's mapped weights are held in it, not copied
        into their Consts (`graph_def_stream`); a function's never are."""

    def unique(self, base: str) -> str:
        return unused_name(base or "node", self.taken)

    def function_name(self, base: str) -> str:
        """A name no other function of the library has."""
        return unused_name(re.sub(r"[^A-Za-z0-9_]", "_", base), self.function_names)

    def node_name(self, op: Operation) -> str:
        """The name of the TensorFlow node the op came from, else the op's."""
        names = location_names(op) or [n for n in op_result_names(op) if n]
        if not names:
            return op.name.split(".")[-1]
        node, _, index = names[0].partition(":")
        # output k > 0 of a node: leave the node's name to what gives all outputs
        return f"{node}/output_{index}" if index not in ("", "0") else node

    def add(
        self,
        op_type: str,
        inputs: Sequence[SSAValue | str],
        name: str | None = None,
        **attrs,
    ) -> NodeDef:
        """A node reading `inputs` (values, or tensor names such as `^x`)."""
        node = self.graph.node.add()
        node.name = self.unique(name or self.node_name(self.op))
        node.op = op_type
        node.input.extend(v if isinstance(v, str) else self.tensor(v) for v in inputs)
        for key, value in attrs.items():
            if value is not None:
                set_attr(node.attr[key], value)
        if self.op is not None:
            self.nodes_of.setdefault(self.op, []).append(node)
        return node

    def const(self, array: np.ndarray, name: str | None = None) -> str:
        array = np.asarray(array)
        base = name or f"{self.node_name(self.op)}/Const"
        node = self.add("Const", [], base, dtype=DataType(DT_OF_NUMPY[array.dtype]))
        set_attr(node.attr["value"], array)
        return node.name

    def tensor(self, value: SSAValue) -> str:
        return self.tensors[value]

    def outputs(self, node: NodeDef, count: int) -> list[str]:
        return [node.name if i == 0 else f"{node.name}:{i}" for i in range(count)]


def no_form(op: Operation, reason: str) -> FrontendError:
    """The error for an op the export cannot write, naming it and saying why."""
    names = location_names(op) or [n for n in op_result_names(op) if n]
    where = f" '{names[0]}'" if names else ""
    return FrontendError(f"no TensorFlow form for {op.name}{where}: {reason}")


Exporter = Callable[[GraphExporter, Operation], Sequence[str]]
EXPORTERS: dict[type[Operation], Exporter] = {}


exporter = registrar(EXPORTERS)
"""`@exporter(ConvOp, ...)`: the exporter of those nn op classes."""


def _exporter_for(op: Operation) -> Exporter | None:
    from graph_opt.formats.tensorflow.export import control_flow as export_control_flow  # noqa: F401
    from graph_opt.formats.tensorflow.export import ops as export_ops  # noqa: F401
    from graph_opt.formats.tensorflow.export import state as export_state  # noqa: F401
    from graph_opt.formats.tensorflow.export import tensor_ops as export_tensor_ops  # noqa: F401
    from graph_opt.formats.tensorflow.op_table import SIMPLE_OP_TYPES, load_mappings

    load_mappings()
    found = EXPORTERS.get(type(op))
    if found is None and type(op) in SIMPLE_OP_TYPES:
        return export_ops.simple(SIMPLE_OP_TYPES[type(op)])
    return found


TERMINATORS = (func.ReturnOp, scf.YieldOp, scf.ConditionOp)
"""Ops that end a function or region: its outputs, not nodes."""


def export_graph_def(
    module: ModuleOp, function: str | None = None, held: list | None = None
) -> GraphDef:
    """The GraphDef of the module's entry function; given `held`, its mapped
    weights are held there, their Consts marked (`graph_def_stream`)."""
    try:
        target = entry_function(module, function)
    except Exception as e:
        raise FrontendError(str(e)) from e
    missing = Counter(
        op.name
        for op in target.body.walk()
        if not isinstance(op, TERMINATORS) and _exporter_for(op) is None
    )
    if missing:
        listing = ", ".join(f"{name} ({n})" for name, n in sorted(missing.items()))
        raise FrontendError(f"ops without a TensorFlow GraphDef form: {listing}")
    e = GraphExporter()
    e.held = held
    for arg, name in zip(target.body.block.args, argument_names(target)):
        node = e.add("Placeholder", [], name, dtype=dtype_of(arg), shape=shape_of(arg))
        e.tensors[arg] = node.name
    export_ops(e, list(target.body.block.ops)[:-1])
    if e.initializers:
        e.add("NoOp", [f"^{n}" for n in e.initializers], "init")
    _name_results(e, target)
    outputs = [input_node(label) for label in result_names(target)]
    drop_unread_nodes(e.graph.node, set(outputs))
    _move_last(e.graph.node, outputs)
    return e.graph


def _move_last(nodes, names: list[str]) -> None:
    """Put the named nodes last, in that order: a re-import without named
    outputs takes the unread nodes in graph order as the results."""
    rank = {name: i + 1 for i, name in enumerate(dict.fromkeys(names))}
    nodes.sort(key=lambda node: rank.get(node.name, 0))  # (stable: moves, never copies)


def drop_unread_nodes(nodes, kept: set[str]) -> None:
    """Remove the nodes (of a GraphDef or FunctionDef) that no input names,
    that are not `kept` and that TensorFlow's registry calls stateless and
    giving outputs, until none is left: ops the graph does not need, or
    constants an exporter wrote anew instead of reading (a Reshape's static
    shape). An unread node would read back as an extra output of the graph."""
    from graph_opt.formats.tensorflow.op_defs import op_defs

    readers: Counter[str] = Counter()
    for node in nodes:
        readers.update(input_node(i) for i in node.input)
    by_name = {node.name: node for node in nodes}
    unread = [name for name in by_name if not readers[name]]
    dropped: set[str] = set()
    while unread:
        node = by_name[unread.pop()]
        op_def = op_defs().get(node.op)
        if (
            node.name in kept
            or node.op == "Placeholder"
            or op_def is None
            or op_def.is_stateful
            or not op_def.output_arg
        ):
            continue
        dropped.add(node.name)
        for source in map(input_node, node.input):
            readers[source] -= 1
            if not readers[source] and source in by_name:
                unread.append(source)
    if dropped:  # to the end (a stable sort moves nodes, never copies), then cut
        nodes.sort(key=lambda node: node.name in dropped)
        del nodes[len(nodes) - len(dropped) :]


def input_node(tensor: str) -> str:
    """The node of an input (`^node`, `node:1`, `node:out_arg:0`)."""
    return tensor.removeprefix("^").partition(":")[0]


def export_ops(e: GraphExporter, ops: Sequence[Operation]) -> None:
    """The nodes of `ops` (in block order), with their control edges."""
    from graph_opt.formats.tensorflow.export.state import ResourceOrder

    order = ResourceOrder()
    waits: list[tuple[list[NodeDef], list[str]]] = []
    for op in ops:
        e.op = op
        first = len(e.graph.node)
        outputs = _exporter_for(op)(e, op)
        e.tensors.update(zip(op.results, outputs))
        made = list(e.graph.node)[first:]
        # helper Consts (a reduction's indices) take no control edges, unless
        # the op is only Consts (an nn.constant)
        nodes = [n for n in made if n.op != "Const"] or made
        if nodes:
            _record_source_names(e, op, nodes)
            _control_edges(e, op, made, nodes, waits)
            order.add(e, op)
    e.op = None
    _add_control_inputs(e, waits)


def _record_source_names(e: GraphExporter, op: Operation, nodes: list[NodeDef]) -> None:
    """Which node stands for each TensorFlow node the op came from (the one of
    its name, else the op's last), for the control inputs naming it."""
    by_name = {n.name: n for n in nodes}
    for name in location_names(op) or op_result_names(op):
        if name:
            source = _OUTPUT_SUFFIX.sub("", name)
            e.source_names.setdefault(source, by_name.get(source, nodes[-1]).name)


def _control_edges(
    e: GraphExporter,
    op: Operation,
    made: list[NodeDef],
    nodes: list[NodeDef],
    waits: list,
) -> None:
    """The op's device on the nodes it became (`made`); its recorded control
    inputs, for `nodes`, queued in `waits`, resolved once every node has its
    name (a node the rewrites placed before the effect it waits on)."""
    device = op.attributes.get(DEVICE_ATTR)
    controls = op.attributes.get(CONTROL_INPUTS_ATTR)
    if isinstance(device, StringAttr):
        for node in made:
            node.device = device.data
    if isinstance(controls, ArrayAttr):
        waits.append((nodes, [c.data for c in controls.data]))  # type: ignore[attr-defined]


def _add_control_inputs(e: GraphExporter, waits: list) -> None:
    unknown = set()
    for nodes, names in waits:
        for name in names:
            source = e.source_names.get(name)
            if source is None:
                unknown.add(name)
                continue
            for node in nodes:
                if source != node.name and f"^{source}" not in node.input:
                    node.input.append(f"^{source}")
    if unknown:
        warn(
            f"export: {len(unknown)} control input(s) name no exported node, "
            f"dropped: {', '.join(sorted(unknown)[:3])}"
        )


def _name_results(e: GraphExporter, target: func.FuncOp) -> None:
    """Results under their names (`node` or `node:k`): where the node of that
    name does not give them, an Identity of that name, or an IdentityN giving
    all the outputs named after one node (its node renamed out of the way)."""
    values = target.body.block.last_op.operands  # type: ignore[union-attr]
    by_node: dict[str, dict[int, SSAValue]] = {}
    unmet: set[str] = set()
    for value, label in zip(values, result_names(target)):
        node, _, index = label.partition(":")
        by_node.setdefault(node, {})[int(index or 0)] = value
        tensor = e.tensor(value)
        if label not in (tensor, f"{tensor}:0") and tensor != f"{label}:0":
            unmet.add(node)
    for node in sorted(unmet):
        outputs = by_node[node]
        if node in e.taken:
            _rename(e, node, e.unique(f"{node}/output_0"))
            e.taken.discard(node)
        filler = next(iter(outputs.values()))
        inputs = [outputs.get(i, filler) for i in range(max(outputs) + 1)]
        if len(inputs) == 1:
            named = e.add("Identity", inputs, node, T=dtype_of(inputs[0]))
        else:
            named = e.add("IdentityN", inputs, node, T=[dtype_of(v) for v in inputs])
        producer = input_node(e.tensor(filler))
        named.device = next((n.device for n in e.graph.node if n.name == producer), "")


def _rename(e: GraphExporter, old: str, new: str) -> None:
    """Rename a node, and every reference to it."""

    def renamed(tensor: str) -> str:
        control = tensor.startswith("^")
        base, colon, index = tensor.removeprefix("^").partition(":")
        return f"{'^' if control else ''}{new}{colon}{index}" if base == old else tensor

    for node in e.graph.node:
        if node.name == old:
            node.name = new
        node.input[:] = [renamed(i) for i in node.input]
    e.tensors = {v: renamed(t) for v, t in e.tensors.items()}


def graph_def_bytes(module: ModuleOp, text: bool) -> bytes:
    """The module as a GraphDef, refused in one line past protobuf's 2 GiB
    (a GraphDef has no external data)."""
    from graph_opt.formats.onnx import external_write as onnx_external_write

    graph = export_graph_def(module)
    size = graph.ByteSize()
    if size > onnx_external_write.PROTOBUF_LIMIT:
        raise FrontendError(
            f"the GraphDef would be {size} bytes, past protobuf's 2 GiB limit, "
            "and a GraphDef keeps its weights inside: write ONNX (-t onnx) instead"
        )
    if text:
        from google.protobuf import text_format

        return text_format.MessageToString(graph).encode()
    return graph.SerializeToString()
