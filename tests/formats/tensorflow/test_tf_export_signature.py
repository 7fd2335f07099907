"""A GraphDef export re-imports with the signature it was exported from: it
writes no node that nothing reads (an unread Const would come back as an extra
output), keeps the control edges that order side effects, and writes string
tensors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graph_opt.dialects.nn.names import result_names
from graph_opt.entry import entry_function
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.export.exporter import export_graph_def
from graph_opt.formats.tensorflow.op_defs import op_defs
from graph_opt.formats.tensorflow.schema import GraphDef

HERE = Path(__file__).parent
REFUSED = {"fixtures/no_shape.pbtxt", "fixtures/not_nested_v1.pbtxt",
           "fixtures/unsupported.pbtxt", "fixtures/tensor_array_dynamic_v1.pb"}  # fmt: skip
"""Graphs the import refuses without options (their errors are tested elsewhere)."""
GRAPHS = sorted(
    name
    for directory in ("fixtures", "corpus")
    for path in (HERE / directory).glob("*.pb*")
    if (name := str(path.relative_to(HERE))) not in REFUSED
)


def signature(module) -> tuple[list, list]:
    function = entry_function(module, None)
    types = function.function_type
    return list(zip(result_names(function), types.outputs.data)), list(
        types.inputs.data
    )


def unread_nodes(graph: GraphDef, outputs: list[str]) -> list[str]:
    """Nodes that no input names and that are no output, no placeholder and
    not run for their effect (stateful, or without outputs as a NoOp)."""
    read = {i.lstrip("^").split(":")[0] for n in graph.node for i in n.input}
    read |= {o.split(":")[0] for o in outputs}
    return [
        n.name
        for n in graph.node
        if n.name not in read
        and n.op != "Placeholder"
        and (d := op_defs()[n.op]).output_arg
        and not d.is_stateful
    ]


def load(name: str):
    return import_graph_def(load_graph_def(str(HERE / name)))


@pytest.mark.parametrize("name", GRAPHS)
def test_export_writes_no_unread_node_and_reimports_with_its_signature(name: str):
    module = load(name)
    graph = export_graph_def(module)
    assert unread_nodes(graph, result_names(entry_function(module, None))) == []
    assert signature(import_graph_def(graph)) == signature(module)


def test_keras_resnet_export_drops_the_paddings_and_indices_it_copied():
    """The import reads a Pad's paddings and a Mean's indices into properties;
    the export writes its own Consts for them, and not the originals."""
    graph = export_graph_def(load("corpus/resnet50.pb"))
    names = {n.name for n in graph.node}
    assert "resnet50_small_1/conv1_pad_1/Const" not in names
    indices = [n for n in names if n.startswith("resnet50_small_1/avg_pool_1/Mean/")]
    assert len(indices) == 1
    assert [n for n in names if n.endswith("Reshape/constant")] == []


def test_string_tensors_export_as_dt_string():
    graph = export_graph_def(load("fixtures/effects.pbtxt"))
    library_nodes = [n for f in graph.library.function for n in f.node_def]
    strings = [
        n for n in library_nodes if n.op == "Const" and n.attr["dtype"].type == 7
    ]
    assert len(strings) == 3
    (fmt,) = [n for n in graph.node if n.op == "StringFormat"]
    (printed,) = [n for n in graph.node if n.op == "PrintV2"]
    assert printed.input[0] == fmt.name


def test_a_constant_keeps_the_control_inputs_that_order_it_after_effects():
    """mul/y waits on the print and on the If holding the assert (through an
    Identity of its output in the original): without those edges TensorFlow
    may compute the result without running either."""
    graph = export_graph_def(load("fixtures/effects.pbtxt"))
    (mul_y,) = [n for n in graph.node if n.name == "mul/y"]
    (branch,) = [n for n in graph.node if n.op == "If"]
    assert set(mul_y.input) == {"^PrintV2", f"^{branch.name}"}


def test_keras_resnet_export_runs_in_tensorflow_with_one_output():
    """TensorFlow (dev time) runs the export to the stored outputs, and the
    only node nothing reads is the output."""
    tf = pytest.importorskip("tensorflow")
    graph_def = export_graph_def(load("corpus/resnet50.pb"))
    data = np.load(HERE / "corpus/resnet50.npz")
    read = {i.lstrip("^").split(":")[0] for n in graph_def.node for i in n.input}
    assert [n.name for n in graph_def.node if n.name not in read] == ["Identity"]
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(
            tf.compat.v1.GraphDef.FromString(graph_def.SerializeToString()), name=""
        )
    with tf.compat.v1.Session(graph=graph) as session:
        (out,) = session.run(["Identity:0"], {"input:0": data["in:input"]})
    np.testing.assert_allclose(out, data["out:0"], atol=1e-5)
