"""TensorFlow 2 SavedModel directories without TensorFlow.

`saved_model.pb` holds a MetaGraphDef: a graph whose signature placeholders and
variable handles (VarHandleOp) feed a StatefulPartitionedCall of the
signature's function, the function library, and the SavedObjectGraph. The
variable values are in the checkpoint `variables/variables` (a tensor bundle,
see `tensor_bundle`); TensorFlow's loader ties them by object-graph node id:
node i of the SavedObjectGraph (a variable, named as its VarHandleOp's
shared_name) is node i of the checkpoint's own object graph, whose
VARIABLE_VALUE attribute names the tensor's checkpoint key.

A call's captured handles are its function's `bound_inputs` there. The import
binds each handle to a Const of its value (ReadVariableOp imports as
an identity), names the arguments and results after the signature's keys, and
imports that graph as a frozen one.

A variable of more than `checkpoint_freeze.MAP_MIN_ELEMENTS` elements is not
read: its shard is mapped and its constant holds the bytes in place
(`graph_opt.weights`), its CRC-32C checked at import (`TensorBundle.mapped`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from google.protobuf.message import DecodeError
from xdsl.dialects.builtin import ModuleOp

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.model_files import ModelDirectory
from graph_opt.formats.tensorflow.checkpoint_freeze import bind_value
from graph_opt.formats.tensorflow.importer import import_graph_def
from graph_opt.formats.tensorflow.schema import (
    GraphDef,
    SavedModel,
    TrackableObjectGraph,
)
from graph_opt.formats.tensorflow.tensor_bundle import TensorBundle
from graph_opt.formats.tensorflow.validation import validate_graph_def
from graph_opt.weights import WeightBytes

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"
INTERNAL_SIGNATURES = ("__saved_model_init_op",)


def import_saved_model(
    directory: str | Path,
    signature: str = "serving_default",
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    allow_opaque: bool = False,
    validate: bool = True,
) -> ModuleOp:
    """Import one signature of a SavedModel directory (see the module's doc).
    With `validate`, the MetaGraph's graph is checked as TensorFlow's loader
    would (before its variables become constants)."""
    mapped: dict[str, WeightBytes] = {}
    graph, outputs = saved_model_graph(directory, signature, validate, mapped)
    return import_graph_def(
        graph, input_shapes, outputs, allow_opaque, validate=False, mapped=mapped
    )


def saved_model_graph(
    directory: str | Path,
    signature: str = "serving_default",
    validate: bool = False,
    mapped: dict[str, WeightBytes] | None = None,
) -> tuple[GraphDef, list[str]]:
    """A frozen GraphDef of the signature, and its output node names. Given
    `mapped`, the large variables are mapped into it by node name, their Consts
    left marked and empty (`MAPPED_ATTR`) rather than holding a copy."""
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
    if validate:
        validate_graph_def(meta_graph.graph_def)
    graph = GraphDef()
    graph.CopyFrom(meta_graph.graph_def)
    _bind_variables(graph, _Checkpoint(directory, meta_graph), meta_graph, mapped)
    definition = signatures[signature]
    _name_inputs(graph, {k: v.name for k, v in definition.inputs.items()})
    outputs = _name_outputs(graph, dict(definition.outputs))
    return graph, outputs


def _meta_graph(directory: Path):
    path = directory / "saved_model.pb"
    data = ModelDirectory(directory).read(path.name, what="the SavedModel")
    model = SavedModel()
    try:
        model.ParseFromString(data)
    except DecodeError as e:
        raise FrontendError(f"{path}: not a valid SavedModel ({e})") from e
    if not model.meta_graphs:
        raise FrontendError(f"{path}: not a valid SavedModel (no meta graph)")
    return model.meta_graphs[0]


class _Checkpoint:
    """The checkpoint's tensor for each SavedObjectGraph variable node, read on demand."""

    def __init__(self, directory: Path, meta_graph):
        self.objects = meta_graph.object_graph_def.nodes
        self.bundle: TensorBundle | None = None
        self.graph = TrackableObjectGraph()
        if any(node.HasField("variable") for node in self.objects):
            self.bundle = TensorBundle(directory / "variables" / "variables", directory)
            try:
                self.graph.ParseFromString(self.bundle.string(OBJECT_GRAPH_KEY))
            except DecodeError as e:
                raise FrontendError(
                    f"{self.bundle.prefix}: a corrupt checkpoint object graph"
                ) from e

    def key(self, node_id: int) -> str | None:
        """The checkpoint key of a variable node, or None when it is not one."""
        if self.bundle is None or not 0 <= node_id < len(self.objects):
            return None
        if not self.objects[node_id].HasField("variable"):
            return None
        name = self.objects[node_id].variable.name
        attributes = (
            self.graph.nodes[node_id].attributes
            if node_id < len(self.graph.nodes)
            else []
        )
        key = next(
            (a.checkpoint_key for a in attributes if a.name == VARIABLE_VALUE), None
        )
        if key is None:
            raise FrontendError(
                f"{self.bundle.prefix}: no checkpoint value for variable '{name}'"
            )
        return key

    def by_name(self) -> dict[str, int]:
        """Variable node ids by the name their handles share."""
        return {
            node.variable.name: i
            for i, node in enumerate(self.objects)
            if node.HasField("variable")
        }


def _bind_variables(
    graph: GraphDef,
    checkpoint: _Checkpoint,
    meta_graph,
    mapped: dict[str, WeightBytes] | None,
) -> None:
    """Each variable handle a function call captures becomes a Const of its value.

    A call's last inputs are its function's captures, in the order of the
    SavedConcreteFunction's `bound_inputs` (object-graph node ids), as
    TensorFlow's loader binds them; handles no call binds that way are matched
    by shared name."""
    nodes = {node.name: node for node in graph.node}
    functions = meta_graph.object_graph_def.concrete_functions
    bound: dict[str, int] = {}
    for node in graph.node:
        function = node.attr["f"].func.name if "f" in node.attr else ""
        if function not in functions:
            continue
        ids = list(functions[function].bound_inputs)
        captured = (
            [i for i in node.input if not i.startswith("^")][-len(ids) :] if ids else []
        )
        for text, node_id in zip(captured, ids):
            bound.setdefault(text.partition(":")[0], node_id)
    by_name = checkpoint.by_name()
    for name, node in nodes.items():
        if node.op != "VarHandleOp":
            continue
        shared = (
            node.attr["shared_name"].s.decode() if "shared_name" in node.attr else ""
        )
        node_id = bound.get(name, by_name.get(shared or name))
        key = None if node_id is None else checkpoint.key(node_id)
        if key is not None:
            bind_value(node, checkpoint.bundle, key, mapped)


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


def _name_outputs(graph: GraphDef, outputs: dict) -> list[str]:
    """An Identity named after each output key (sorted), reading its tensor
    (`outputs`: TensorInfo by key)."""
    taken = {node.name for node in graph.node}
    names = []
    for key in sorted(outputs):
        name = key if key not in taken else f"{key}/output"
        node = graph.node.add(name=name, op="Identity")
        node.input.append(outputs[key].name.removesuffix(":0"))
        node.attr["T"].type = outputs[key].dtype
        names.append(name)
    return names
