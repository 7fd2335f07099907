"""GraphDefs TensorFlow's importer refuses are refused on import, checked
against TensorFlow's op registry (op_defs.pb.gz, from make_op_defs.py), with
no false refusal on any GraphDef or SavedModel TensorFlow wrote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from make_fixtures import FLOAT, INT32, GraphBuilder, Type

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.op_defs import infer_type_attrs, op_defs
from graph_opt.formats.tensorflow.saved_model import saved_model_graph
from graph_opt.formats.tensorflow.schema import DATA_TYPES, GraphDef
from graph_opt.formats.tensorflow.validation import validate_graph_def
from graph_opt.testing.fuzz.mutations import TF_INVALID_MUTATIONS, mutate_graph_def
from graph_opt.testing.fuzz.tf_graphs import random_graph_def

HERE = Path(__file__).parent
WRITTEN_BY_TENSORFLOW = sorted(
    p
    for folder in (HERE / "corpus", HERE / "fixtures")
    for p in folder.iterdir()
    if p.suffix in (".pb", ".pbtxt") or (p / "saved_model.pb").exists()
)


def test_the_registry_is_tensorflows():
    defs = op_defs()
    assert len(defs) > 1500
    conv = defs["Conv2D"]
    assert [a.type_attr for a in conv.input_arg] == ["T", "T"]
    assert {a.name for a in conv.attr} >= {"T", "strides", "padding", "data_format"}


@pytest.mark.parametrize("path", WRITTEN_BY_TENSORFLOW, ids=lambda p: p.name)
def test_what_tensorflow_wrote_is_valid(path: Path):
    if path.is_dir():
        graph, _ = saved_model_graph(path, validate=True)
        assert graph.node
    else:
        validate_graph_def(load_graph_def(str(path)))


def conv_graph() -> GraphBuilder:
    g = GraphBuilder()
    g.placeholder("x", [1, 4, 4, 2])
    g.const("w", np.ones((1, 1, 2, 3), np.float32))
    g.node("conv", "Conv2D", ["x", "w"], T=Type(FLOAT), strides=[1, 1, 1, 1],
           padding="VALID")  # fmt: skip
    return g


def refused(change) -> str:
    g = conv_graph()
    change(g.graph.node[-1])
    with pytest.raises(FrontendError) as info:
        import_graph_def(g.graph)
    import_graph_def(
        g.graph, validate=False, allow_opaque=True
    )  # only validation refuses
    return str(info.value)


def test_what_tensorflows_importer_refuses_is_refused():
    prefix = "node 'conv' (Conv2D): "
    cases = {
        "input 0 is float from 'x', expected double": lambda n: setattr(
            n.attr["T"], "type", DATA_TYPES["DT_DOUBLE"]
        ),
        "attr 'T': 'string' is not an allowed value": lambda n: setattr(
            n.attr["T"], "type", DATA_TYPES["DT_STRING"]
        ),
        "attr 'kernel_shape' is not an attribute of Conv2D": lambda n: setattr(
            n.attr["kernel_shape"], "i", 3
        ),
        "attr 'padding': 'FULL' is not an allowed value": lambda n: setattr(
            n.attr["padding"], "s", b"FULL"
        ),
        "attr 'padding': a int value where string is expected": lambda n: (
            n.attr["padding"].Clear(),
            setattr(n.attr["padding"], "i", 1),
        ),
    }
    for message, change in cases.items():
        assert refused(change) == prefix + message
    with pytest.raises(
        FrontendError, match="expects 2 inputs \\(float, float\\), has 1"
    ):
        g = conv_graph()
        g.graph.node[-1].input.pop()
        import_graph_def(g.graph)


def test_missing_attributes_and_minimums():
    g = conv_graph()
    del g.graph.node[-1].attr["strides"]
    with pytest.raises(
        FrontendError, match="missing attr 'strides' \\(list\\(int\\)\\)"
    ):
        validate_graph_def(g.graph)
    g = GraphBuilder()
    g.placeholder("x", [2])
    g.const("axis", np.array(0, np.int32))
    g.node("cat", "ConcatV2", ["x", "axis"], N=1)
    with pytest.raises(FrontendError, match="'N': value 1 is below the minimum 2"):
        validate_graph_def(g.graph)


def test_private_attributes_and_unknown_ops_are_left_alone():
    g = conv_graph()
    g.graph.node[-1].attr["_output_shapes"].list.Clear()
    g.node("custom", "MyCustomOp", ["conv"], anything=3)
    validate_graph_def(g.graph)


def test_command_line_refuses_in_one_line_unless_no_validate(tmp_path: Path):
    g = conv_graph()
    g.graph.node[-1].attr["T"].type = DATA_TYPES["DT_HALF"]
    path = tmp_path / "bad.pb"
    g.write(path)
    run = [sys.executable, "-m", "graph_opt", str(path)]
    refused = subprocess.run(run, capture_output=True, text=True)
    assert refused.returncode != 0
    assert refused.stderr.strip().splitlines() == [
        f"graph-opt: {path}: error: node 'conv' (Conv2D): input 0 is float from 'x', "
        "expected half"
    ]
    assert subprocess.run([*run, "--no-validate"], capture_output=True).returncode == 0


def test_invalid_mutations_of_random_graphs_are_always_refused():
    kinds = set()
    for seed in range(60):
        graph, outputs = random_graph_def(seed % 6)
        bad = mutate_graph_def(graph, np.random.default_rng(seed))
        if not bad.refused_by_tensorflow:
            continue
        kinds.add(bad.name)
        mutated = GraphDef()
        mutated.ParseFromString(bad.data)
        with pytest.raises(FrontendError):
            import_graph_def(mutated, outputs=outputs)
    assert kinds == {f"pb:{kind}" for kind in TF_INVALID_MUTATIONS}


def test_type_attributes_are_inferred_from_inputs():
    g = GraphBuilder()
    g.placeholder("x", [2, 3])
    g.const("axis", np.array(1, np.int32))
    cat = g.node("cat", "ConcatV2", ["x", "x", "axis"])
    assert (cat.attr["N"].i, cat.attr["T"].type, cat.attr["Tidx"].type) == (
        2,
        FLOAT,
        INT32,
    )
    both = g.node("both", "IdentityN", ["x", "axis"])
    assert list(both.attr["T"].list.type) == [FLOAT, INT32]
    kept = g.node("kept", "Relu", ["x"], T=Type(DATA_TYPES["DT_HALF"]))
    infer_type_attrs(kept, {"x": g.graph.node[0]})
    assert kept.attr["T"].type == DATA_TYPES["DT_HALF"]
    with pytest.raises(FrontendError, match="node 'kept' \\(Relu\\): input 0 is float"):
        validate_graph_def(g.graph)
