"""The TensorFlow nodes of the tf_state ops, for `graph_export`: ref variables
(VariableV2, Assign, Apply*) or resource ones (VarHandleOp, AssignVariableOp,
ResourceApply*), FIFO queues, and NoOp groups."""

from __future__ import annotations

from xdsl.ir import Operation

from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.dense import to_numpy
from graph_opt.dialects.tf_state import (
    ApplyAdamOp,
    ApplyGradientDescentOp,
    ApplyMomentumOp,
    AssignAddOp,
    AssignOp,
    AssignSubOp,
    DequeueOp,
    EnqueueOp,
    FifoQueueOp,
    GroupOp,
    ReadOp,
    UpdateOp,
    VariableOp,
    VariableType,
)
from graph_opt.formats.tensorflow.export.exporter import (
    GraphExporter,
    dtype_of,
    exporter,
)
from graph_opt.formats.tensorflow.schema import NodeDef


def _resource(e: GraphExporter, value) -> tuple[str, bool]:
    """(resource name, whether a resource variable) of a handle value."""
    owner = value.owner
    if isinstance(owner, VariableOp):
        return owner.var_name.data, owner.resource is not None
    return owner.queue_name.data, True


@exporter(VariableOp)
def export_variable(e, op: VariableOp):
    value_type = op.handle.type.value_type
    attrs = {
        "dtype": dtype_of(value_type),
        "shape": ("shape", list(value_type.get_shape())),
    }
    name = op.var_name.data
    if op.resource is not None:
        node = e.add("VarHandleOp", [], name, shared_name=name, container="",
                     allowed_devices=[], **attrs)  # fmt: skip
        node.attr["allowed_devices"].list.SetInParent()
    else:
        node = e.add("VariableV2", [], name, shared_name="", container="", **attrs)
    if op.initial_value is not None:
        initial = e.const(to_numpy(op.initial_value), f"{node.name}/initial_value")
        if op.resource is not None:
            assign = e.add("AssignVariableOp", [node.name, initial], f"{node.name}/Assign",
                           dtype=attrs["dtype"], validate_shape=False)  # fmt: skip
        else:
            assign = e.add("Assign", [node.name, initial], f"{node.name}/Assign",
                           T=attrs["dtype"], use_locking=True, validate_shape=True)  # fmt: skip
        e.initializers.append(assign.name)
    e.nodes_of[op] = [node]
    return [node.name]


@exporter(ReadOp)
def export_read(e, op: ReadOp):
    variable = op.variable
    _, resource = _resource(e, variable)
    dtype = dtype_of(op.results[0])
    if resource:
        return e.outputs(e.add("ReadVariableOp", [variable], dtype=dtype), 1)
    return e.outputs(e.add("Identity", [variable], T=dtype), 1)


UPDATE_TYPES = {
    AssignOp: "Assign", AssignAddOp: "AssignAdd", AssignSubOp: "AssignSub",
    ApplyGradientDescentOp: "ApplyGradientDescent", ApplyMomentumOp: "ApplyMomentum",
    ApplyAdamOp: "ApplyAdam",
}  # fmt: skip


@exporter(*UPDATE_TYPES)
def export_update(e, op: UpdateOp):
    _, resource = _resource(e, op.operands[0])
    op_type = UPDATE_TYPES[type(op)]
    dtype = dtype_of(op.results[0])
    attrs: dict = {}
    if type(op) in (ApplyMomentumOp, ApplyAdamOp):
        attrs["use_nesterov"] = op.properties.get("use_nesterov") is not None
    if not resource:
        if type(op) is AssignOp:
            attrs["validate_shape"] = True
        node = e.add(op_type, op.operands, T=dtype, use_locking=False, **attrs)
        return e.outputs(node, 1)
    if op_type.startswith("Assign"):
        node = e.add(f"{op_type}VariableOp", op.operands, dtype=dtype)
    else:
        node = e.add(
            f"Resource{op_type}", op.operands, T=dtype, use_locking=False, **attrs
        )
    if not op.results[0].uses:
        return [f"{node.name}:0"]  # no output in TensorFlow: unread
    read = e.add(
        "ReadVariableOp",
        [op.operands[0], f"^{node.name}"],
        f"{node.name}/read",
        dtype=dtype,
    )
    return e.outputs(read, 1)


@exporter(FifoQueueOp)
def export_fifo_queue(e, op: FifoQueueOp):
    components = list(op.handle.type.component_types.data)
    name = op.queue_name.data
    node = e.add(
        "FIFOQueueV2", [], name, component_types=[dtype_of(c) for c in components],
        shapes=[("shape", list(c.get_shape())) for c in components],
        capacity=int_value(op.properties, "capacity", -1), container="", shared_name="",
    )  # fmt: skip
    e.nodes_of[op] = [node]
    return [node.name]


@exporter(EnqueueOp)
def export_enqueue(e, op: EnqueueOp):
    op_type = "QueueEnqueueManyV2" if op.many is not None else "QueueEnqueueV2"
    components = list(op.components)
    e.add(
        op_type,
        op.operands,
        Tcomponents=[dtype_of(v) for v in components],
        timeout_ms=-1,
    )
    return []


@exporter(DequeueOp)
def export_dequeue(e, op: DequeueOp):
    op_type = "QueueDequeueManyV2" if op.count is not None else "QueueDequeueV2"
    node = e.add(op_type, op.operands, component_types=[dtype_of(v) for v in op.results],
                 timeout_ms=-1)  # fmt: skip
    return e.outputs(node, len(op.results))


@exporter(GroupOp)
def export_group(e, op: GroupOp):
    e.add("NoOp", [])
    return []


class ResourceOrder:
    """Control edges that keep the block's order of the ops on each variable
    where no data edge does: a write after the reads and the write before it, a
    read after the last write. (Queue operations need none: a dequeue waits
    for its elements, and an enqueue may be a fetch of its own.)"""

    def __init__(self):
        self.last_write: dict[str, str] = {}
        self.reads: dict[str, list[str]] = {}

    def add(self, e: GraphExporter, op: Operation) -> None:
        handles = [v for v in op.operands if isinstance(v.type, VariableType)]
        if not handles:
            return
        nodes = {n.name for n in e.nodes_of.get(op, [])}
        first = next(n for n in e.nodes_of[op])
        writes = not isinstance(op, ReadOp)
        for handle in handles:
            name, _ = _resource(e, handle)
            before = [self.last_write.get(name)] + (
                self.reads.get(name, []) if writes else []
            )
            for source in before:
                if source and source not in nodes and not _reads(first, source):
                    first.input.append(f"^{source}")
            if writes:
                self.last_write[name] = first.name
                self.reads[name] = []
            else:
                self.reads.setdefault(name, []).append(first.name)


def _reads(node: NodeDef, source: str) -> bool:
    return any(i.split(":")[0].lstrip("^") == source for i in node.input)
