"""A cluster description: files read field by field with one-line errors, and
its devices' memory used as the memory passes' per-device budgets (the
numbers unchanged), its preferred layouts by convert-layout."""

from __future__ import annotations

import numpy as np
import pytest
from memory_graphs import random_inputs, resnet_like, unet_like
from xdsl.dialects.builtin import StringAttr
from xdsl.traits import ConstantLike
from xdsl.utils.exceptions import DiagnosticException, PassFailedException

from graph_opt import api
from graph_opt.dialects.effects import DEVICE_ATTR
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.entry import entry_function
from graph_opt.interpreter import run_function
from graph_opt.memory import plan_function
from graph_opt.memory.cluster import Cluster, Device
from graph_opt.memory.cluster_file import ClusterFileError, read_cluster
from graph_opt.memory.plan import op_floor
from graph_opt.tools.graph_opt_main import main

GPU0, GPU1, CPU = "/device:GPU:0", "/device:GPU:1", "/device:CPU:0"


def write(tmp_path, text: str, suffix: str = ".json"):
    path = tmp_path / f"cluster{suffix}"
    path.write_text(text)
    return path


def test_fields_and_units_are_read(tmp_path):
    path = write(
        tmp_path,
        '{"default_device": "/gpu:0", "devices": ['
        '{"name": "/device:GPU:0", "memory": "16GiB", "bandwidth": "12.5 GB/s", '
        '"layout": "NCHW"}, {"name": "/cpu:0", "memory": 1000}]}',
    )
    cluster = read_cluster(path)
    assert cluster.devices == (
        Device(GPU0, 16 * 2**30, 12.5e9, "NCHW"),
        Device("/cpu:0", 1000, None, None),
    )
    assert cluster.device("").name == GPU0  # unplaced: the default device
    assert cluster.device("/job:localhost/replica:0/task:0/device:CPU:0").memory == 1000
    assert cluster.device("/device:GPU:3") is None


def test_toml_is_read(tmp_path):
    path = write(
        tmp_path,
        'default_device = "/cpu:0"\n[[devices]]\nname = "/cpu:0"\nmemory = "64MiB"\n',
        ".toml",
    )
    assert read_cluster(path).device("").memory == 64 * 2**20


BAD_FILES = {
    "not json": ('{"devices": [}', "cluster.json:1:14: not valid JSON"),
    "a list": ("[]", "cluster.json: expected an object with `devices`"),
    "no devices": ('{"devices": []}', "cluster.json: devices: expected a non-empty"),
    "unknown field": (
        '{"devices": [{"name": "/gpu:0", "memroy": 1}]}',
        "cluster.json: devices[0].memroy: unknown field (known: name, memory, "
        "bandwidth, layout)",
    ),
    "no name": ('{"devices": [{"memory": 1}]}', "cluster.json: devices[0].name:"),
    "twice": (
        '{"devices": [{"name": "/gpu:0"}, {"name": "/device:GPU:0"}]}',
        "cluster.json: devices[1].name: /device:GPU:0 is listed twice",
    ),
    "layout": (
        '{"devices": [{"name": "/gpu:0", "layout": "NWHC"}]}',
        "cluster.json: devices[0].layout: expected NCHW or NHWC, got 'NWHC'",
    ),
    "memory words": (
        '{"devices": [{"name": "/gpu:0", "memory": "lots"}]}',
        "cluster.json: devices[0].memory: expected a positive number of bytes, "
        "or one such as '16GiB', got 'lots'",
    ),
    "memory unit": (
        '{"devices": [{"name": "/gpu:0", "memory": "16 GiG"}]}',
        "cluster.json: devices[0].memory:",
    ),
    "memory negative": (
        '{"devices": [{"name": "/gpu:0", "memory": -5}]}',
        "cluster.json: devices[0].memory:",
    ),
    "memory boolean": (
        '{"devices": [{"name": "/gpu:0", "memory": true}]}',
        "cluster.json: devices[0].memory:",
    ),
    "bandwidth per second": (
        '{"devices": [{"name": "/gpu:0", "bandwidth": "16GB"}]}',
        "cluster.json: devices[0].bandwidth: expected a positive number of "
        "bytes/s, or one such as '16GiB/s', got '16GB'",
    ),
    "default device": (
        '{"default_device": "/gpu:1", "devices": [{"name": "/gpu:0"}]}',
        "cluster.json: default_device: '/gpu:1' names no listed device",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_is_one_line_naming_file_and_field(tmp_path, case):
    text, expected = BAD_FILES[case]
    with pytest.raises(ClusterFileError) as caught:
        read_cluster(write(tmp_path, text))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(str(tmp_path)) and expected in message


def test_bad_toml_and_missing_file_are_one_line(tmp_path):
    with pytest.raises(ClusterFileError, match=r"cluster.toml: not valid TOML"):
        read_cluster(write(tmp_path, "devices = [", ".toml"))
    with pytest.raises(ClusterFileError, match=r"nothing.json: cannot read"):
        read_cluster(tmp_path / "nothing.json")


def test_command_line_refuses_a_bad_cluster_in_one_line(tmp_path, capsys):
    model = write(tmp_path, "func.func @main() {\n  func.return\n}\n", ".mlir")
    bad = write(tmp_path, '{"devices": [{"name": "/gpu:0", "layout": 1}]}')
    assert main([str(model), f"--cluster={bad}", "-p", "swap"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"--cluster: {bad}: devices[0].layout: expected NCHW or NHWC" in err


def gpu_peak(module, cluster: Cluster) -> int:
    plan = plan_function(entry_function(module), cluster=cluster)
    return plan.devices[GPU0].peak_bytes


@pytest.mark.parametrize("graph", [unet_like, resnet_like])
def test_swap_meets_the_default_devices_memory_with_the_same_numbers(graph):
    """Unplaced ops run on the GPU: its memory less the constants is the
    budget; swap brings the peak there, outputs unchanged."""
    module = graph()
    plan = plan_function(entry_function(module))
    floor = op_floor(plan.liveness, "")[0]
    constants = plan.devices[""].constant_bytes
    cluster = Cluster((Device(GPU0, floor + constants),), default_device=GPU0)
    inputs = random_inputs(module)
    expected = run_function(module, inputs)
    assert gpu_peak(module, cluster) > floor

    stats: list = []
    api.run(module, "swap", statistics=stats, cluster=cluster)

    assert gpu_peak(module, cluster) <= floor
    assert stats[0].counters[f"budget bytes in @main on {GPU0}"] == floor
    for got, want in zip(run_function(module, inputs), expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_each_device_has_its_own_budget(tmp_path):
    """A graph split over two GPUs (the last third of its ops on GPU:1): the
    small one swaps down to its memory, the roomy one swaps nothing; outputs
    unchanged."""
    module = unet_like()
    block = entry_function(module).body.block
    ops = [op for op in block.ops if not op.has_trait(ConstantLike)]
    for op in ops[-(len(ops) // 3) :]:
        op.attributes[DEVICE_ATTR] = StringAttr(GPU1)
    roomy = Cluster((Device(GPU0), Device(GPU1)), default_device=GPU0)
    plan = plan_function(entry_function(module), cluster=roomy)
    floor = op_floor(plan.liveness, GPU0)[0]
    assert plan.devices[GPU0].peak_bytes > floor
    memory = floor + plan.devices[GPU0].constant_bytes
    path = write(
        tmp_path,
        f'{{"default_device": "{GPU0}", "devices": [{{"name": "{GPU0}", '
        f'"memory": {memory}}}, {{"name": "{GPU1}", "memory": "1GiB"}}]}}',
    )
    inputs = random_inputs(module)
    expected = run_function(module, inputs)
    stats: list = []
    api.run(module, "swap", statistics=stats, cluster=path)
    counters = stats[0].counters
    assert counters[f"peak bytes after in @main on {GPU0}"] <= floor
    assert counters[f"tensors swapped in @main on {GPU0}"] > 0
    assert counters[f"tensors swapped in @main on {GPU1}"] == 0
    assert counters[f"budget bytes in @main on {GPU1}"] == 2**30 - (
        plan.devices[GPU1].constant_bytes
    )
    for got, want in zip(run_function(module, inputs), expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_a_budget_option_overrides_the_cluster():
    module = unet_like()
    cluster = Cluster((Device(GPU0, 1),), default_device=GPU0)
    stats: list = []
    api.run(module, "swap{budget=1000000000}", statistics=stats, cluster=cluster)
    assert stats[0].counters[f"tensors swapped in @main on {GPU0}"] == 0


CONVS = """
func.func @main(%x: tensor<1x6x6x3xf32>) -> tensor<1x6x6x4xf32> {
  %w1 = nn.constant dense<[[[[0.5, -1.0, 0.25, 2.0], [1.5, 0.75, -0.5, 1.0], [-2.0, 0.5, 1.0, 0.25]]]]> : tensor<1x1x3x4xf32>
  %w2 = nn.constant dense<0.125> : tensor<3x3x4x4xf32>
  %a = nn.conv %x, %w1 {data_layout = "NHWC", tf.device = "/device:GPU:0"} : (tensor<1x6x6x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x6x6x4xf32>
  %r = nn.relu %a : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %b = nn.conv %r, %w2 {data_layout = "NHWC", auto_pad = "SAME_UPPER", tf.device = "/device:CPU:0"} : (tensor<1x6x6x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x6x6x4xf32>
  %c = nn.conv %b, %w2 {data_layout = "NHWC", auto_pad = "SAME_UPPER"} : (tensor<1x6x6x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x6x6x4xf32>
  func.return %c : tensor<1x6x6x4xf32>
}
"""


def test_convert_layout_converts_the_gpus_ops_only_same_numbers():
    """NCHW for the GPU conv and the unplaced one (default device: the GPU),
    NHWC kept for the CPU's; outputs as before."""
    cluster = Cluster(
        (Device(GPU0, layout="NCHW"), Device(CPU, layout="NHWC")), default_device=GPU0
    )
    module = api.parse(CONVS)
    x = np.random.default_rng(0).standard_normal((1, 6, 6, 3)).astype(np.float32)
    (expected,) = run_function(module, [x])
    stats: list = []
    api.run(module, "convert-layout", statistics=stats, cluster=cluster)
    layouts = {
        op.attributes.get(DEVICE_ATTR, StringAttr("")).data: op.layout
        for op in module.walk()
        if isinstance(op, ConvOp)
    }
    assert layouts == {GPU0: "NCHW", CPU: "NHWC", "": "NCHW"}
    assert stats[0].counters["ops kept in their layout by the cluster"] == 1
    (got,) = run_function(module, [x])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_a_pass_option_names_the_bad_file_and_field(tmp_path):
    bad = write(tmp_path, '{"devices": [{"name": "/gpu:0", "memory": 0}]}')
    with pytest.raises(PassFailedException) as caught:
        api.run(unet_like(), f'memory-plan{{cluster="{bad}"}}')
    assert str(caught.value).startswith(f"memory-plan: {bad}: devices[0].memory:")


def test_without_budget_or_cluster_swap_says_what_to_give():
    with pytest.raises(DiagnosticException, match="give budget=BYTES, or a cluster"):
        api.run(unet_like(), "swap")
