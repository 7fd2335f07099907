"""swap: the numbers stay, the planner's device peak comes down to the budget
on graphs with long skip connections, and the pair exports as Identity."""

import numpy as np
import onnxruntime
import pytest
from memory_graphs import random_inputs, resnet_like, training_like, unet_like

from graph_opt import api
from graph_opt.dialects.nn.device_copy import SwapInOp, SwapOutOp
from graph_opt.entry import entry_function
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.interpreter import run_function
from graph_opt.memory import plan_function
from graph_opt.memory.plan import op_floor
from graph_opt.remarks import GraphOptWarning

GRAPHS = {
    "unet": lambda: unet_like(),
    "resnet": lambda: resnet_like(),
    "training": lambda: training_like(),
}


def peaks(module) -> dict[str, int]:
    plan = plan_function(entry_function(module))
    return {d: p.peak_bytes for d, p in plan.devices.items()}


def lowest_budget(module) -> int:
    """The largest bytes one op reads and makes: what swapping can reach."""
    return op_floor(plan_function(entry_function(module)).liveness, "")[0]


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_swap_meets_the_budget_with_the_same_numbers(name):
    module = GRAPHS[name]()
    inputs = random_inputs(module)
    expected = run_function(module, inputs)
    before, budget = peaks(module)[""], lowest_budget(module)
    assert budget < before  # the skips are held across the peak

    stats = []
    api.run(module, f"swap{{budget={budget}}}", statistics=stats)

    after = peaks(module)
    assert after[""] <= budget
    assert after["/device:CPU:0"] > 0  # what left the device is on the host
    counters = stats[0].counters
    assert counters["peak bytes before in @main"] == before
    assert counters["peak bytes after in @main"] == after[""]
    assert counters["tensors swapped in @main"] > 0
    assert not stats[0].warnings
    for got, want in zip(run_function(module, inputs), expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_each_swap_in_waits_for_a_late_op():
    module = unet_like()
    api.run(module, f"swap{{budget={lowest_budget(module)}}}")
    ops = list(entry_function(module).body.block.ops)
    swap_ins = [op for op in ops if isinstance(op, SwapInOp)]
    assert swap_ins
    for swap_in in swap_ins:
        assert isinstance(swap_in.input.owner, SwapOutOp)
        # the trigger ran right before the copy back, the reader right after
        assert swap_in.after is not None
        assert ops.index(swap_in.after.owner) == ops.index(swap_in) - 1
        assert swap_in.output.first_use.operation is ops[ops.index(swap_in) + 1]


def test_export_runs_in_onnxruntime():
    module = unet_like()
    inputs = random_inputs(module)
    expected = run_function(module, inputs)
    api.run(module, f"swap{{budget={lowest_budget(module)}}}")
    model = export_module(module)
    assert "Identity" in {n.op_type for n in model.graph.node}
    session = onnxruntime.InferenceSession(model.SerializeToString())
    (got,) = session.run(None, {"x": inputs[0]})
    np.testing.assert_allclose(got, expected[0], rtol=1e-4, atol=1e-5)


def test_unreachable_budget_says_by_how_much():
    module = unet_like()
    floor = lowest_budget(module)
    with pytest.warns(
        GraphOptWarning, match=r"stays above the budget 1000 bytes by (\d+)"
    ) as said:
        api.run(module, "swap{budget=1000}")
    assert f"by {floor - 1000} bytes" in str(said[0].message)
    assert peaks(module)[""] == floor  # it still swapped what it could


def test_nothing_to_do_warns():
    module = unet_like()
    before = api.to_mlir(module)
    with pytest.warns(GraphOptWarning, match="already fits the budget"):
        api.run(module, f"swap{{budget={peaks(module)['']}}}")
    assert api.to_mlir(module) == before


def test_graph_def_export_is_grappler_s_identity_pair():
    """Each copy is an Identity on its device; a swap_in waits on its trigger's
    node through a control input; the export re-imports with the same numbers."""
    from graph_opt.formats.tensorflow import import_graph_def
    from graph_opt.formats.tensorflow.export.exporter import graph_def_bytes
    from graph_opt.formats.tensorflow.schema import GraphDef

    module = unet_like()
    inputs = random_inputs(module)
    expected = run_function(module, inputs)
    api.run(module, f"swap{{budget={lowest_budget(module)}}}")
    graph = GraphDef()
    graph.ParseFromString(graph_def_bytes(module, text=False))
    identities = [n for n in graph.node if n.op == "Identity"]
    on_host = [n for n in identities if n.device == "/device:CPU:0"]
    waiting = [n for n in identities if any(i.startswith("^") for i in n.input)]
    swaps = sum(isinstance(op, SwapOutOp) for op in module.walk())
    assert len(on_host) == swaps and len(waiting) >= 1
    names = {n.name for n in graph.node}
    for node in waiting:
        assert all(i.lstrip("^").partition(":")[0] in names for i in node.input)
    reimported = import_graph_def(graph, outputs=[graph.node[-1].name])
    for got, want in zip(run_function(reimported, inputs), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
