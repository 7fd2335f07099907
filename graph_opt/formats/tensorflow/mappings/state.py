"""Variables, optimizer updates and queues of training graphs, as tf_state ops.

A ref variable (VariableV2) or resource variable (VarHandleOp) becomes
tf_state.variable, with the constant its initializer assigns as initial value
(see `variables.initial_values`). An op other than an update that reads a ref
variable reads its value (`graph_import` inserts the tf_state.read).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, UnitAttr

from graph_opt.dialects.nn.base import i64_attr, str_attr
from graph_opt.dialects.nn.elementwise import IdentityOp
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
    QueueType,
    ReadOp,
    VariableOp,
    VariableType,
)
from graph_opt.formats.tensorflow.op_table import importer
from graph_opt.formats.tensorflow.tensors import dense_from_tensor, tensor_type

UPDATES = {
    "Assign": AssignOp,
    "AssignAdd": AssignAddOp,
    "AssignSub": AssignSubOp,
    "AssignVariableOp": AssignOp,
    "AssignAddVariableOp": AssignAddOp,
    "AssignSubVariableOp": AssignSubOp,
    "ApplyGradientDescent": ApplyGradientDescentOp,
    "ResourceApplyGradientDescent": ApplyGradientDescentOp,
    "ApplyMomentum": ApplyMomentumOp,
    "ResourceApplyMomentum": ApplyMomentumOp,
    "ApplyAdam": ApplyAdamOp,
    "ResourceApplyAdam": ApplyAdamOp,
}
"""TensorFlow's updates of variables (ref and resource forms)."""

REF_INPUT_OPS = frozenset(
    name for name in UPDATES if not name.startswith(("Resource", "Assign"))
) | {"Assign", "AssignAdd", "AssignSub"}
"""Ops that take ref variables as such; any other op reads their value."""

QUEUE_OPS = frozenset(
    {"QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2"}
)
STATEFUL_OPS = frozenset(UPDATES) | QUEUE_OPS
"""The ops that change state: ordered, and never dropped from what runs."""


def resource_name(node) -> str:
    shared = node.attr["shared_name"].s.decode() if "shared_name" in node.attr else ""
    return shared or node.name


@importer("VariableV2", "VarHandleOp")
def import_variable(b, node, inputs):
    shape = b.attr("shape")
    if shape is None or -1 in shape:
        b.decline("a variable needs a static shape")
    value_type = tensor_type(b.attr("dtype"), shape)
    props = {"var_name": str_attr(resource_name(node))}
    initial = b.context.initial_values.get(node.name)
    if initial is not None:
        props["initial_value"] = dense_from_tensor(initial, f"node '{node.name}'")
    if node.op == "VarHandleOp":
        props["resource"] = UnitAttr()
    return b.builder.insert(
        VariableOp.create(properties=props, result_types=[VariableType(value_type)])
    )


@importer("ReadVariableOp")
def import_read_variable(b, node, inputs):
    if isinstance(inputs[0].type, VariableType):
        return b.create(ReadOp, inputs)
    # a handle that a SavedModel's import bound to its constant value
    return b.create(IdentityOp, inputs)


@importer(*UPDATES)
def import_update(b, node, inputs):
    op_class = UPDATES[node.op]
    if not isinstance(inputs[0].type, VariableType):
        b.decline("the updated value is not a variable")
    props = {"use_nesterov": UnitAttr()} if b.attr("use_nesterov", False) else {}
    return b.create(op_class, inputs, props)


@importer("FIFOQueueV2")
def import_fifo_queue(b, node, inputs):
    types = b.attr("component_types")
    shapes = b.attr("shapes", [])
    if len(shapes) != len(types) or any(s is None for s in shapes):
        b.decline("a queue needs the shape of each component (attribute 'shapes')")
    components = ArrayAttr([tensor_type(t, s) for t, s in zip(types, shapes)])
    props = {"queue_name": str_attr(resource_name(node))}
    capacity = b.attr("capacity", -1)
    if capacity >= 0:
        props["capacity"] = i64_attr(capacity)
    return b.builder.insert(
        FifoQueueOp.create(properties=props, result_types=[QueueType(components)])
    )


@importer("QueueEnqueueV2", "QueueEnqueueManyV2")
def import_enqueue(b, node, inputs):
    props = {"many": UnitAttr()} if node.op == "QueueEnqueueManyV2" else {}
    return b.create(EnqueueOp, inputs, props)


@importer("QueueDequeueV2", "QueueDequeueManyV2")
def import_dequeue(b, node, inputs):
    return b.create(DequeueOp, inputs)


@importer("NoOp")
def import_no_op(b, node, inputs):
    """A NoOp that waits on state changes (a training step) is a tf_state.group;
    other NoOps order nothing that an export needs (effects such as Assert are
    ordered by the `tf.control_inputs` of the ops after them)."""
    if any(name in b.state_nodes for name in b.control_effects):
        b.state_nodes.add(node.name)
        return b.builder.insert(GroupOp.create())
    return []


def initial_values(nodes) -> dict:
    """The TensorProto each variable's initializer assigns: an Assign (or
    AssignVariableOp) of a Const, possibly through Identity, to the variable."""
    by_name = {n.name: n for n in nodes}
    found = {}
    for node in nodes:
        if node.op not in ("Assign", "AssignVariableOp") or len(node.input) < 2:
            continue
        target, value = (by_name.get(name.split(":")[0]) for name in node.input[:2])
        while value is not None and value.op == "Identity" and value.input:
            value = by_name.get(value.input[0].split(":")[0])
        if (
            target is not None
            and target.op in ("VariableV2", "VarHandleOp")
            and value is not None
            and value.op == "Const"
            and target.name not in found
        ):
            found[target.name] = value.attr["value"].tensor
    return found


def read_ref_variables(b, inputs: list) -> list:
    """The inputs, each ref variable (VariableV2) replaced by a read of its value."""
    return [
        b.create(ReadOp, [v]).results[0]
        if isinstance(v.type, VariableType) and v.owner.resource is None
        else v
        for v in inputs
    ]
