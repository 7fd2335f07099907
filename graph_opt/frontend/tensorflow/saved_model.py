"""TensorFlow 2 SavedModel directories without TensorFlow.

`saved_model.pb` holds a MetaGraphDef: a graph whose signature placeholders and
variable handles (VarHandleOp) feed a StatefulPartitionedCall of the
signature's function, the function library, and the SavedObjectGraph. The
variable values are in the checkpoint `variables/variables` (a tensor bundle,
see `tensor_bundle`); TensorFlow's loader ties them by object-graph node id:
node i of the SavedObjectGraph (a variable, named as its VarHandleOp's
shared_name) is node i of the checkpoint's own object graph, whose
VARIABLE_VALUE attribute names the tensor's checkpoint key.

The import binds each handle to a Const of its value (ReadVariableOp imports as
an identity), names the arguments and results after the signature's keys, and
imports that graph as a frozen one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from google.protobuf.message import DecodeError
from xdsl.dialects.builtin import ModuleOp

from graph_opt.frontend.errors import FrontendError
from graph_opt.frontend.tensorflow.graph_import import import_graph_def
from graph_opt.frontend.tensorflow.schema import (
    GraphDef,
    NodeDef,
    SavedModel,
    TrackableObjectGraph,
)
from graph_opt.frontend.tensorflow.tensor_bundle import TensorBundle

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"
INTERNAL_SIGNATURES = ("__saved_model_init_op",)


def is_saved_model(path: str | Path) -> bool:
    return (Path(path) / "saved_model.pb").is_file()


def import_saved_model(
    directory: str | Path,
    signature: str = "serving_default",
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    allow_opaque: bool = False,
) -> ModuleOp:
    """Import one signature of a SavedModel directory (see the module's doc)."""
    graph, outputs = saved_model_graph(directory, signature)
    return import_graph_def(graph, input_shapes, outputs, allow_opaque)


def saved_model_graph(
    directory: str | Path, signature: str = "serving_default"
) -> tuple[GraphDef, list[str]]:
    """A frozen GraphDef of the signature, and its output node names."""
    directory = Path(directory)
    meta_graph = _meta_graph(directory)
    signatures = {
        k: v
        for k, v in meta_graph.signature_def.items()
        if k not in INTERNAL_SIGNATURES
    }
    if signature not in signatures:
        known = ", ".join(sorted(signatures)) or "none"
        raise FrontendError(f"{directory}: no signature '{signature}' (has: {known})")
    graph = GraphDef()
    graph.CopyFrom(meta_graph.graph_def)
    _bind_variables(graph, _variable_values(directory, meta_graph))
    definition = signatures[signature]
    _name_inputs(graph, {k: v.name for k, v in definition.inputs.items()})
    outputs = _name_outputs(graph, {k: v.name for k, v in definition.outputs.items()})
    return graph, outputs


def _meta_graph(directory: Path):
    path = directory / "saved_model.pb"
    model = SavedModel()
    try:
        model.ParseFromString(path.read_bytes())
    except OSError as e:
        raise FrontendError(f"{path}: cannot read the SavedModel ({e.strerror})") from e
    except DecodeError as e:
        raise FrontendError(f"{path}: not a valid SavedModel ({e})") from e
    if not model.meta_graphs:
        raise FrontendError(f"{path}: not a valid SavedModel (no meta graph)")
    return model.meta_graphs[0]


def _variable_values(directory: Path, meta_graph) -> dict[str, object]:
    """Each variable's value (a lazy reader) by the name its VarHandleOp shares."""
    variables = [
        (i, node.variable.name)
        for i, node in enumerate(meta_graph.object_graph_def.nodes)
        if node.HasField("variable")
    ]
    if not variables:
        return {}
    bundle = TensorBundle(directory / "variables" / "variables")
    checkpoint_graph = TrackableObjectGraph()
    try:
        checkpoint_graph.ParseFromString(bundle.string(OBJECT_GRAPH_KEY))
    except DecodeError as e:
        raise FrontendError(
            f"{bundle.prefix}: a corrupt checkpoint object graph"
        ) from e
    keys = {}
    for node_id, name in variables:
        if node_id >= len(checkpoint_graph.nodes):
            raise FrontendError(
                f"{bundle.prefix}: no checkpoint value for variable '{name}'"
            )
        attributes = checkpoint_graph.nodes[node_id].attributes
        keys[name] = next(
            (a.checkpoint_key for a in attributes if a.name == VARIABLE_VALUE), None
        )
        if keys[name] is None:
            raise FrontendError(
                f"{bundle.prefix}: no checkpoint value for variable '{name}'"
            )
    return {name: (bundle, key) for name, key in keys.items()}


def _bind_variables(graph: GraphDef, values: dict[str, object]) -> None:
    """Each VarHandleOp of a variable becomes a Const of its value."""
    for node in graph.node:
        if node.op != "VarHandleOp":
            continue
        shared = (
            node.attr["shared_name"].s.decode() if "shared_name" in node.attr else ""
        )
        found = values.get(shared or node.name) or values.get(node.name)
        if found is None:
            continue  # a handle no signature reads (the saver's), or an error later
        bundle, key = found
        _make_const(node, bundle.tensor(key), bundle.entries[key].dtype)


def _make_const(node: NodeDef, array, dtype: int) -> None:
    name, device = node.name, node.device
    node.Clear()
    node.name, node.op, node.device = name, "Const", device
    node.attr["dtype"].type = dtype
    tensor = node.attr["value"].tensor
    tensor.dtype = dtype
    for size in array.shape:
        tensor.tensor_shape.dim.add(size=size)
    tensor.tensor_content = array.tobytes()


def _name_inputs(graph: GraphDef, inputs: dict[str, str]) -> None:
    """Signature placeholders take their key's name (when no node has it)."""
    taken = {node.name for node in graph.node}
    renames = {}
    for key, tensor in inputs.items():
        name = tensor.rpartition(":")[0] or tensor
        if key not in taken:
            renames[name] = key
            taken.add(key)
    if not renames:
        return
    for node in graph.node:
        if node.name in renames:
            node.name = renames[node.name]
        for i, text in enumerate(node.input):
            control = text.startswith("^")
            source, colon, index = text.lstrip("^").partition(":")
            if source in renames:
                node.input[i] = (
                    ("^" if control else "") + renames[source] + colon + index
                )


def _name_outputs(graph: GraphDef, outputs: dict[str, str]) -> list[str]:
    """An Identity named after each output key (sorted), reading its tensor."""
    taken = {node.name for node in graph.node}
    names = []
    for key in sorted(outputs):
        name = key if key not in taken else f"{key}/output"
        node = graph.node.add(name=name, op="Identity")
        node.input.append(outputs[key].removesuffix(":0"))
        names.append(name)
    return names
