"""Every registered pass keeps what TensorFlow placed and ordered, as Grappler
does: the `tf.device` of the ops that stand for original nodes, an Identity
copying a tensor from the GPU to the CPU, and the control inputs that make an
op wait on an Assert; through a GraphDef export and a re-import too."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from graph_opt import api
from graph_opt.dialects.effects import CONTROL_INPUTS_ATTR, DEVICE_ATTR
from graph_opt.dialects.nn.elementwise import IdentityOp
from graph_opt.dialects.nn.names import location_names
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.entry import entry_function
from graph_opt.formats.tensorflow import import_graph_def
from graph_opt.formats.tensorflow.export.exporter import export_graph_def
from graph_opt.formats.tensorflow.schema import GraphDef
from graph_opt.passes import XDSL_PASS_OVERRIDES, get_all_passes
from graph_opt.patterns import apply_rewrites, is_op, redirect_to, wildcard
from graph_opt.remarks import GraphOptWarning
from graph_opt.testing.graph_defs import Type, set_attr

GPU, CPU = "/device:GPU:0", "/device:CPU:0"
F32, I32 = Type(1), Type(3)


def placed_graph() -> GraphDef:
    """conv, bias (waiting on `cpu/check_conv`), batch norm, relu and an
    identity on the GPU; an Identity copying to the CPU, max pool, reshape,
    a scale folding to a constant, and `cpu/out` waiting on `cpu/check`.
    Each node is placed by its name's prefix."""
    graph = GraphDef()
    rng = np.random.default_rng(0)

    def node(name: str, op: str, inputs=(), **attrs) -> None:
        n = graph.node.add(name=name, op=op)
        n.input.extend(inputs)
        n.device = GPU if name.startswith("gpu/") else CPU
        for key, value in attrs.items():
            set_attr(n.attr[key], value)

    def const(name: str, values, dtype=np.float32) -> None:
        array = np.asarray(values, dtype)
        node(name, "Const", dtype=F32 if dtype == np.float32 else I32, value=array)

    node("x", "Placeholder", dtype=F32, shape=("shape", [1, 8, 8, 3]))
    const("gpu/w", rng.normal(size=(3, 3, 3, 4)))
    node("gpu/conv", "Conv2D", ["x", "gpu/w"], T=F32, strides=[1, 1, 1, 1],
         padding="SAME", data_format="NHWC")  # fmt: skip
    const("gpu/b", rng.normal(size=4))
    node("gpu/bias", "BiasAdd", ["gpu/conv", "gpu/b", "^cpu/check_conv"], T=F32,
         data_format="NHWC")  # fmt: skip
    for name in ("scale", "offset", "mean"):
        const(f"gpu/{name}", rng.normal(size=4))
    const("gpu/var", rng.uniform(0.5, 2, size=4))
    node("gpu/bn", "FusedBatchNormV3",
         ["gpu/bias", "gpu/scale", "gpu/offset", "gpu/mean", "gpu/var"],
         T=F32, U=F32, epsilon=1e-3, is_training=False, data_format="NHWC")  # fmt: skip
    node("gpu/relu", "Relu", ["gpu/bn"], T=F32)
    node("gpu/same", "Identity", ["gpu/relu"], T=F32)
    node("cpu/copy", "Identity", ["gpu/same"], T=F32)
    node("cpu/pool", "MaxPool", ["cpu/copy"], T=F32, ksize=[1, 2, 2, 1],
         strides=[1, 2, 2, 1], padding="VALID", data_format="NHWC")  # fmt: skip
    const("cpu/shape", [1, -1], np.int32)
    node("cpu/flat", "Reshape", ["cpu/pool", "cpu/shape"], T=F32, Tshape=I32)
    const("cpu/two", 2.0)
    const("cpu/three", 3.0)
    node("cpu/six", "Mul", ["cpu/two", "cpu/three"], T=F32)
    node("cpu/scaled", "Mul", ["cpu/flat", "cpu/six"], T=F32)
    const("cpu/axes", [0, 1, 2, 3], np.int32)
    for reduce, compare, bound, check in (
        ("Min", "GreaterEqual", -100.0, "cpu/check"),
        ("Max", "LessEqual", 100.0, "cpu/check_conv"),
    ):
        node(f"{check}/{reduce}", reduce, ["x", "cpu/axes"], T=F32, Tidx=I32,
             keep_dims=False)  # fmt: skip
        const(f"{check}/bound", bound)
        node(f"{check}/ok", compare, [f"{check}/{reduce}", f"{check}/bound"], T=F32)
        node(check, "Assert", [f"{check}/ok", "x"], T=[F32], summarize=3)
    node("cpu/out", "Identity", ["cpu/scaled", "^cpu/check"], T=F32)
    return graph


def pipeline(name: str, tmp_path: Path) -> str:
    """The pass with the options it needs to run on the graph."""
    samples = tmp_path / "samples.npz"
    x = np.random.default_rng(1).normal(size=(1, 8, 8, 3)).astype(np.float32)
    np.savez(samples, x=x)
    calibrate = f'calibrate{{inputs="{samples}"}}'
    np.savez(tmp_path / "variables.npz")
    return {
        "freeze-variables": f'freeze-variables{{values="{tmp_path}/variables.npz"}}',
        "calibrate": calibrate,
        "quantize": f"{calibrate},quantize",
        "convert-to-int": f"{calibrate},quantize,convert-to-int",
        "swap": "swap{budget=1000}",
        "recompute": "recompute{budget=1000}",
        "partition-pattern": "partition-pattern{pattern=conv-bias-relu}",
        "bind-params": f'bind-params{{file="{samples}"}}',
    }.get(name, name)


LOWERINGS = {"lower-to-tosa"}
"""Passes that leave TensorFlow (TOSA has no devices and no Assert): tested apart."""
PASSES = sorted((set(get_all_passes()) | set(XDSL_PASS_OVERRIDES)) - LOWERINGS)
NO_GRAPHDEF_FORM = {"optimize", "partition-pattern", "convert-to-int"}
"""Passes whose output has ops without a GraphDef form (a fused conv, a call,
int8 ops): checked in the IR only."""


def control_inputs(op: Operation) -> list[str]:
    names = op.attributes.get(CONTROL_INPUTS_ATTR)
    return [n.data for n in names.data] if names is not None else []  # type: ignore[attr-defined]


def waits(value: SSAValue) -> set[str]:
    """The control inputs the value's computation waits on, through its producers."""
    found: set[str] = set()
    stack, seen = [value.owner], set()
    while stack:
        op = stack.pop()
        if not isinstance(op, Operation) or op in seen:
            continue
        seen.add(op)
        found.update(control_inputs(op))
        stack.extend(v.owner for v in op.operands)
    return found


def assert_placed_and_ordered(module) -> None:
    main = entry_function(module, None)
    for op in main.walk():
        names = location_names(op)
        if names and names[0].startswith(("gpu/", "cpu/")):
            device = op.attributes.get(DEVICE_ATTR)
            expected = GPU if names[0].startswith("gpu/") else CPU
            assert device is not None and device.data == expected, (op.name, names)
    copies = [
        op
        for op in main.walk()
        if isinstance(op, IdentityOp)
        and op.attributes.get(DEVICE_ATTR) is not None
        and op.attributes[DEVICE_ATTR].data == CPU
        and op.input.owner.attributes.get(DEVICE_ATTR) is not None
        and op.input.owner.attributes[DEVICE_ATTR].data == GPU
    ]
    assert len(copies) == 1  # the GPU -> CPU copy survives
    checks = [o for o in main.walk() if isinstance(o, OpaqueOp)]
    assert sorted(o.op_type.data for o in checks) == ["Assert", "Assert"]
    assert "cpu/check_conv" in waits(copies[0].input)
    (result,) = main.body.block.last_op.operands  # type: ignore[union-attr]
    assert {"cpu/check", "cpu/check_conv"} <= waits(result)


def run(name: str, tmp_path: Path):
    module = import_graph_def(placed_graph())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # passes finding nothing to do say so
        api.run(module, pipeline(name, tmp_path))
    return module


def test_the_graph_is_placed_and_ordered_as_imported():
    assert_placed_and_ordered(import_graph_def(placed_graph()))


@pytest.mark.parametrize("name", PASSES)
def test_pass_keeps_devices_copies_and_control_inputs(name: str, tmp_path: Path):
    module = run(name, tmp_path)
    assert_placed_and_ordered(module)
    if name not in NO_GRAPHDEF_FORM:
        assert_placed_and_ordered(import_graph_def(export_graph_def(module)))


def test_optimize_keeps_the_copy_after_a_fused_conv(tmp_path: Path):
    """fuse-ops rebuilds the GPU conv: placed, the copy to the CPU stays (prune
    removes an identity only when its input is on its device)."""
    module = run("optimize", tmp_path)
    main = entry_function(module, None)
    fused = [o for o in main.walk() if o.name == "nn.fused_conv"]
    assert [o.attributes[DEVICE_ATTR].data for o in fused] == [GPU]


def test_prune_keeps_a_returned_identity_that_waits_on_an_assert(tmp_path: Path):
    module = run("prune", tmp_path)
    main = entry_function(module, None)
    returned = main.body.block.last_op.operands[0].owner  # type: ignore[union-attr]
    assert isinstance(returned, IdentityOp)
    assert control_inputs(returned) == ["cpu/check"]
    graph = export_graph_def(module)
    (out,) = [n for n in graph.node if n.name == "cpu/out"]
    assert "^cpu/check" in out.input


def test_lowering_to_tosa_refuses_the_assert_instead_of_dropping_it(tmp_path: Path):
    with pytest.raises(PassFailedException, match="Assert"):
        run("lower-to-tosa", tmp_path)


def test_exported_check_still_runs_in_tensorflow():
    tf = pytest.importorskip("tensorflow")
    module = import_graph_def(placed_graph())
    api.run(module, "prune")
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(
            tf.compat.v1.GraphDef.FromString(
                export_graph_def(module).SerializeToString()
            ),
            name="",
        )
    config = tf.compat.v1.ConfigProto(allow_soft_placement=True)
    with tf.compat.v1.Session(graph=graph, config=config) as session:
        fine = np.zeros((1, 8, 8, 3), np.float32)
        assert session.run("cpu/out:0", {"x:0": fine}).shape == (1, 64)
        with pytest.raises(tf.errors.InvalidArgumentError):
            session.run("cpu/out:0", {"x:0": fine - 1000})


def test_every_registered_pass_is_covered():
    assert set(PASSES) | LOWERINGS == set(get_all_passes()) | set(XDSL_PASS_OVERRIDES)


DOUBLE_RELU = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = nn.relu %a {tf.control_inputs = ["check"]} : (tensor<4xf32>) -> tensor<4xf32>
  %e = nn.exp %b : (tensor<4xf32>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}"""


def drop_outer_relu(module) -> None:
    inner = is_op("relu")(wildcard())
    assert apply_rewrites(module, [redirect_to(is_op("relu")(inner), inner)]).total == 1


def test_a_redirected_op_hands_its_control_inputs_to_its_users():
    module = api.parse(DOUBLE_RELU)
    drop_outer_relu(module)
    ops = list(entry_function(module, None).body.block.ops)
    assert [o.name for o in ops] == ["nn.relu", "nn.exp", "func.return"]
    assert control_inputs(ops[0]) == [] and control_inputs(ops[1]) == ["check"]


def test_control_inputs_no_user_can_take_are_reported():
    module = api.parse(
        DOUBLE_RELU.replace(
            "  %e = nn.exp %b : (tensor<4xf32>) -> tensor<4xf32>\n", ""
        ).replace("func.return %e", "func.return %b")
    )
    with pytest.warns(GraphOptWarning, match=r"control inputs \['check'\] are lost"):
        drop_outer_relu(module)


def test_dead_code_waiting_on_an_effect_goes_without_a_report():
    module = api.parse(
        DOUBLE_RELU.replace("%e = nn.exp %b", "%e = nn.exp %a")  # %b unused
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api.run(module, "canonicalize")
    assert [str(w.message) for w in caught if "lost" in str(w.message)] == []
    assert [o.name for o in entry_function(module, None).body.block.ops] == [
        "nn.relu",
        "nn.exp",
        "func.return",
    ]


def test_a_graph_without_placement_has_none_carried(monkeypatch):
    """An ONNX graph has no device or control input: optimize's rewrites of it
    carry nothing (the keeper records no removal, so never looks for any), and
    the result is the same."""
    from xdsl.context import Context

    from graph_opt.passes.optimize import OptimizePass
    from graph_opt.rewriting.placement import PlacementKeeper
    from graph_opt.testing.model_zoo import conv_chain

    def refused(self, root):
        raise AssertionError(f"placement carried for {root.name}")

    module = api.load(conv_chain(40))
    monkeypatch.setattr(PlacementKeeper, "_carry", refused)
    OptimizePass().apply(Context(), module)
    assert not any(op.name == "nn.batch_norm" for op in module.walk())
    assert not any(
        DEVICE_ATTR in op.attributes or CONTROL_INPUTS_ATTR in op.attributes
        for op in module.walk()
    )
